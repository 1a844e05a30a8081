/**
 * The one interface between the agent loop and any model vendor. The loop never imports a
 * vendor SDK; adapters under anthropic/ and openai/ translate these types to wire formats.
 */
import type { TokenUsage } from '../events/usage';

/** A plain text span in a message. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** A tool call the model made, with its fully parsed input. */
export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  input: unknown;
}

/**
 * Extended thinking from the model. Anthropic requires these blocks (with their signature)
 * to be sent back unchanged on the next request, so they are kept in the history.
 */
export interface ThinkingPart {
  type: 'thinking';
  text: string;
  signature: string;
  /** Set for redacted thinking: opaque data to pass back. */
  redactedData?: string;
}

/** An image the model sees (issue 36). See src/core/images for the limits it was prepared to. */
export interface ImagePart {
  type: 'image';
  mediaType: ImageMediaType;
  /** The encoded image, base64 (already scaled and re-encoded to fit every provider's limits). */
  data: string;
  width: number;
  height: number;
  /** sha256 of the encoded bytes, hex: the image's key in the store. */
  sha256: string;
  /** The file or pasted name, for notes and the chat. */
  name?: string;
}

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** The outcome of a tool call, sent back to the model. */
export interface ToolResultPart {
  type: 'tool_result';
  toolCallId: string;
  toolName: string;
  output: string;
  isError: boolean;
  /** Images the tool returned with its text (read_file of a picture, for a model that sees). */
  images?: ImagePart[];
}

/** Model messages: what the loop keeps as history. Distinct from UI messages and wire messages. */
export type ModelMessage =
  | { role: 'user'; content: Array<TextPart | ImagePart | ToolResultPart> }
  | { role: 'assistant'; content: Array<TextPart | ThinkingPart | ToolCallPart> };

/** A tool as the model sees it: a JSON Schema for its input. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface LlmRequest {
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ToolDefinition[];
  /** "none" forbids tool calls while the tools stay declared (history may contain tool blocks). */
  toolChoice?: 'auto' | 'none';
  maxOutputTokens: number;
  /** Aborting stops the HTTP stream at once. */
  signal?: AbortSignal;
  /**
   * Told when the answer, once begun, has made no progress for a while (the pause so far, in
   * ms), and with undefined when it moves on again (see idle-watchdog.ts).
   */
  onSilence?: (silentMs: number | undefined) => void;
}

export type { TokenUsage };

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'other';

/**
 * A tool call read from the answer's text, where the server left it instead of returning it as
 * a tool call (see text-tool-calls/): how it was written, and whether its JSON was repaired.
 */
export interface TextToolCallNote {
  format: 'tool_call_tag' | 'function_tag' | 'fenced_json';
  /** jsonrepair fixed the JSON before it parsed. */
  repaired: boolean;
  /** The text the call was read from (its start, when long). */
  source: string;
}

/** What an adapter yields while a response streams in. */
export type LlmStreamPart =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  /** A finished thinking block, to keep in the history. */
  | { type: 'thinking'; text: string; signature: string; redactedData?: string }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; argumentsDelta: string }
  /** A complete tool call whose arguments parsed as JSON. */
  | { type: 'tool_call'; id: string; name: string; input: unknown; fromText?: TextToolCallNote }
  /**
   * A complete tool call whose arguments did not parse: the model sees this as a tool error. For
   * a call read from the text (`fromText`), `error` is the whole message for the model.
   */
  | {
      type: 'tool_call_invalid';
      id: string;
      name: string;
      rawArguments: string;
      error: string;
      fromText?: TextToolCallNote;
    }
  /** `reported` is false when the server sent no usage and the numbers are an estimate. */
  | { type: 'usage'; usage: TokenUsage; reported: boolean }
  | { type: 'finish'; stopReason: StopReason };

/** What a server can tell about the model it runs (local engines; see openai/server-info.ts). */
export interface ModelServerInfo {
  /** The context window the server runs the model with, in tokens; undefined when it does not say. */
  contextWindow(model: string, signal?: AbortSignal): Promise<number | undefined>;
  /** The request's input tokens as the server's own template and tokenizer count them, where it can. */
  countInputTokens(request: LlmRequest, signal?: AbortSignal): Promise<number | undefined>;
}

export interface LlmClient {
  /** e.g. "anthropic", "ollama": used in messages, traces and pricing. */
  readonly provider: string;
  stream(request: LlmRequest): AsyncIterable<LlmStreamPart>;
  /** The models the server offers (OpenAI-compatible servers: GET /v1/models). */
  listModels(signal?: AbortSignal): Promise<string[]>;
  /** Present for servers that can be asked about the model; wrappers pass it through. */
  readonly server?: ModelServerInfo;
}

/** A failure the user can act on; `kind` lets hosts offer the right fix. */
export class LlmError extends Error {
  constructor(
    message: string,
    readonly kind:
      | 'authentication'
      | 'connection'
      | 'rate_limit'
      | 'server'
      | 'bad_request'
      | 'stream'
      /** The request did not fit the model's context window (the server said so). */
      | 'context_overflow',
    readonly status?: number,
    /** What the server asked for in retry-after / retry-after-ms. */
    readonly retryAfterMs?: number,
    /** For context_overflow: the window the server named, when it did. */
    readonly contextWindow?: number,
    /** For context_overflow: how many tokens the server counted in the refused request, when it said. */
    readonly promptTokens?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

/** The error a stream ends with when its request was aborted: a cancellation, not a failure. */
export { abortError } from '../abort';
