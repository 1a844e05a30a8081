/**
 * LlmClient over the Anthropic Messages API, streaming. Reads the raw server-sent events
 * rather than the SDK's MessageStream helper so tool-call arguments are joined once, at the
 * end of each block (see ToolCallAccumulator).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { LlmClient, LlmRequest, LlmStreamPart, TokenUsage } from '../llm-client';
import { abortError, LlmError } from '../llm-client';
import { ToolCallAccumulator } from '../tool-call-accumulator';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';
import { toLlmError } from '../map-sdk-error';

export interface AnthropicClientOptions {
  apiKey: string;
  /** Defaults to Anthropic's API; tests point it at the fake model server. */
  baseUrl?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

export class AnthropicClient implements LlmClient {
  readonly provider = 'anthropic';
  private readonly sdk: Anthropic;

  constructor(options: AnthropicClientOptions) {
    this.sdk = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseUrl || undefined,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 10 * 60_000,
    });
  }

  async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
    let events: AsyncIterable<Anthropic.RawMessageStreamEvent>;
    try {
      events = await this.sdk.messages.create(
        {
          model: request.model,
          max_tokens: request.maxOutputTokens,
          // The system prompt is identical across turns: mark it for prompt caching.
          system: request.system ? [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }] : [],
          messages: convertToAnthropicMessages(request.messages),
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
          })),
          stream: true,
        },
        { signal: request.signal },
      );
    } catch (error) {
      throw toLlmError(error, 'Anthropic');
    }

    const calls = new ToolCallAccumulator();
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let sawUsage = false;
    let stopReason: string | null | undefined;
    let complete = false;
    try {
      for await (const event of events) {
        switch (event.type) {
          case 'message_start': {
            const reported = event.message.usage as Partial<Anthropic.Usage> | undefined;
            if (reported) {
              sawUsage = true;
              usage.inputTokens = reported.input_tokens ?? 0;
              usage.outputTokens = reported.output_tokens ?? 0;
              usage.cacheReadTokens = reported.cache_read_input_tokens ?? 0;
              usage.cacheWriteTokens = reported.cache_creation_input_tokens ?? 0;
            }
            break;
          }
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              calls.start(event.index, event.content_block.id, event.content_block.name);
              yield { type: 'tool_call_start', id: event.content_block.id, name: event.content_block.name };
            } else if (event.content_block.type === 'text' && event.content_block.text) {
              yield { type: 'text_delta', text: event.content_block.text };
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') {
              yield { type: 'text_delta', text: event.delta.text };
            } else if (event.delta.type === 'input_json_delta') {
              const id = calls.append(event.index, event.delta.partial_json);
              if (id) yield { type: 'tool_call_delta', id, argumentsDelta: event.delta.partial_json };
            }
            break;
          case 'content_block_stop': {
            const finished = calls.finish(event.index);
            if (finished) yield finished;
            break;
          }
          case 'message_delta': {
            stopReason = event.delta.stop_reason;
            const reported = event.usage as Partial<Anthropic.MessageDeltaUsage> | undefined;
            if (reported) {
              sawUsage = true;
              // message_delta carries cumulative counts.
              if (typeof reported.output_tokens === 'number') usage.outputTokens = reported.output_tokens;
              if (typeof reported.input_tokens === 'number') usage.inputTokens = reported.input_tokens;
            }
            break;
          }
          case 'message_stop':
            complete = true;
            break;
        }
      }
    } catch (error) {
      throw request.signal?.aborted ? abortError() : toLlmError(error, 'Anthropic');
    }
    // Some SDK versions end the iteration quietly on abort instead of throwing.
    if (request.signal?.aborted) throw abortError();
    // A stream that ends without message_stop was cut: its unfinished tool calls never run.
    if (!complete)
      throw new LlmError('The response stream from Anthropic ended before the message was complete.', 'stream');
    yield { type: 'usage', usage, reported: sawUsage };
    yield { type: 'finish', stopReason: mapAnthropicStopReason(stopReason) };
  }
}
