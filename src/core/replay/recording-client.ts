/**
 * The model client that records each call it makes (one attempt: put it inside the retry, so a
 * failed attempt is a step too). It takes the request as sent and the stream's parts as they
 * come, and hands them to the recorder when the call ends; the recorder redacts, hashes and
 * stores them later, off the loop's path. The call itself is passed through untouched.
 */
import type { LlmClient, LlmRequest, LlmStreamPart } from '../llm/llm-client';
import { snapshotRequest, type RequestSnapshot } from './recorded-request';

/** Where a recorded call goes (RunRecorder). */
export interface ModelCallSink {
  /** Numbers the call (steps are numbered as they begin) and returns how to end it. */
  beginModelCall(call: {
    conversationId: string;
    agentId: string;
    work: string;
    provider: string;
    request: RequestSnapshot;
  }): (outcome: { parts: LlmStreamPart[]; error?: unknown }) => void;
}

export function withRecording(
  client: LlmClient,
  sink: ModelCallSink,
  call: { conversationId: string; agentId: string; work: string },
): LlmClient {
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      const end = sink.beginModelCall({ ...call, provider: client.provider, request: snapshotRequest(request) });
      const parts: LlmStreamPart[] = [];
      let error: unknown;
      try {
        for await (const part of client.stream(request)) {
          parts.push(part);
          yield part;
        }
      } catch (failure) {
        error = failure;
        throw failure;
      } finally {
        // Also when the consumer stopped reading early: the call ended there.
        end(error === undefined ? { parts } : { parts, error });
      }
    },
  };
}
