/**
 * Wraps any LlmClient so tool calls a server left in the answer's text come out as tool-call
 * parts (text-tool-call-recovery.ts), whichever wire format carried them: everything after this
 * point — the loop, approvals, policy, the audit trail, the traces — sees them exactly as it
 * sees the server's own tool calls, marked `fromText`.
 *
 * Streaming: text is passed on as it arrives until a `<tool_call>`, `<function=` or JSON fence
 * opener that may be a call; from there the answer is held to its end, when it is read whole
 * (whether a span is code can hang on what follows it) and the calls come out.
 */
import type { LlmClient, LlmRequest, LlmStreamPart } from '../llm-client';
import { TextToolCallRecovery } from './text-tool-call-recovery';

export interface TextToolCallOptions {
  /** Ids for recovered calls (tests). */
  newId?: () => string;
}

export function withTextToolCalls(client: LlmClient, options: TextToolCallOptions = {}): LlmClient {
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      // With no tool to call, text is only text.
      if (request.tools.length === 0 || request.toolChoice === 'none') {
        yield* client.stream(request);
        return;
      }
      const recovery = new TextToolCallRecovery(request.tools, options.newId);
      let usage: LlmStreamPart | undefined;
      let finished = false;
      try {
        for await (const part of client.stream(request)) {
          if (part.type === 'text_delta') {
            yield* recovery.text(part.text);
          } else if (part.type === 'usage') {
            // Held so that calls found at the end come before it, as the server's own do.
            usage = part;
          } else if (part.type === 'finish') {
            finished = true;
            yield* recovery.end(part.stopReason);
            if (usage) yield usage;
            usage = undefined;
            yield recovery.recoveredCalls > 0 && part.stopReason === 'end_turn'
              ? { type: 'finish', stopReason: 'tool_use' }
              : part;
          } else {
            if (part.type === 'tool_call_start') recovery.nativeCall();
            yield part;
          }
        }
      } catch (error) {
        // What the user would have seen had nothing been held back; none of it runs.
        yield* recovery.abandon();
        throw error;
      }
      if (!finished) {
        yield* recovery.end('other');
        if (usage) yield usage;
      }
    },
  };
}
