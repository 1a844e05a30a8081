/**
 * A model request as recorded (RecordedRequest in recording.ts) and back. A request carries the
 * whole history, so each call's request is mostly the last one's: kept by parts (the system
 * prompt, each tool, each message, each long text by ref), a call stores only what is new. The
 * history's content arrays are never edited in place (history.ts makes new ones), so a message
 * seen before is known by its array and not redacted or hashed again.
 */
import type { LlmRequest, ModelMessage, ToolDefinition } from '../llm/llm-client';
import { contentOf } from './content-hash';
import type { ContentRef, RecordedMessage, RecordedRequest, RecordedText } from './recording';

/** Texts this long or longer are kept of their own, once, however many messages hold them. */
export const LONG_TEXT_CHARS = 1024;

/** A value to keep: its ref and canonical JSON (already redacted). */
export interface Content {
  ref: ContentRef;
  json: string;
  value: unknown;
}

/** The request as sent, taken at the call: the history array goes on growing after it. */
export type RequestSnapshot = Omit<LlmRequest, 'signal' | 'onSilence' | 'messages'> & {
  messages: ReadonlyArray<{ role: ModelMessage['role']; content: ModelMessage['content'] }>;
};

export function snapshotRequest(request: LlmRequest): RequestSnapshot {
  const { signal: _signal, onSilence: _onSilence, messages, ...rest } = request;
  return { ...rest, messages: messages.map((message) => ({ role: message.role, content: message.content })) };
}

/** Splits requests into their parts, remembering the parts it has already made refs of. */
export class RequestSplitter {
  private readonly messageRefs = new WeakMap<object, { user?: ContentRef; assistant?: ContentRef }>();
  private readonly toolRefs = new WeakMap<object, ContentRef>();
  private readonly systems = new Map<string, ContentRef>();

  /** `redact`: the recorder's redaction (held secrets, key shapes), applied before anything is hashed. */
  constructor(private readonly redact: <T>(value: T) => T) {}

  /** The request's ref and every part to keep (some may be kept already: the store skips those). */
  split(request: RequestSnapshot): { ref: ContentRef; contents: Content[] } {
    const contents: Content[] = [];
    const keep = (value: unknown): ContentRef => {
      const made = contentOf(value);
      contents.push({ ...made, value });
      return made.ref;
    };
    let system = this.systems.get(request.system);
    if (!system) {
      system = keep(this.redact(request.system));
      if (this.systems.size > 16) this.systems.clear();
      this.systems.set(request.system, system);
    }
    const tools = request.tools.map((tool) => this.toolRef(tool, keep));
    const messages = request.messages.map((message) => {
      const known = this.messageRefs.get(message.content);
      const cached = known?.[message.role];
      if (cached) return cached;
      const ref = keep(this.recordedMessage(message, keep));
      this.messageRefs.set(message.content, { ...known, [message.role]: ref });
      return ref;
    });
    const recorded: RecordedRequest = {
      model: request.model,
      system,
      tools,
      messages,
      ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
      maxOutputTokens: request.maxOutputTokens,
    };
    return { ref: keep(recorded), contents };
  }

  /** A tool definition's ref (the manifest names the same refs as the requests). */
  toolRef(tool: ToolDefinition, keep: (value: unknown) => ContentRef): ContentRef {
    let ref = this.toolRefs.get(tool);
    if (!ref) {
      ref = keep(this.redact({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
      this.toolRefs.set(tool, ref);
    }
    return ref;
  }

  private recordedMessage(
    message: RequestSnapshot['messages'][number],
    keep: (value: unknown) => ContentRef,
  ): RecordedMessage {
    const content = message.content.map((part) => {
      const redacted = this.redact(part) as unknown as Record<string, unknown> & { type: string };
      const copy: RecordedMessage['content'][number] = { ...redacted };
      for (const field of ['text', 'output'] as const) {
        const text = copy[field];
        if (typeof text === 'string' && text.length >= LONG_TEXT_CHARS) copy[field] = { ref: keep(text) };
      }
      return copy;
    });
    return { role: message.role, content };
  }
}

/** Reads content by ref (a RecordingStore's getContent). */
export type ContentReader = (ref: ContentRef) => Promise<unknown>;

/**
 * The request a ModelStep sent, whole again (without its signal). Throws, naming the ref, when
 * a part is missing from the store: a recording that lost content cannot be replayed silently.
 */
export async function joinRequest(ref: ContentRef, read: ContentReader): Promise<Omit<LlmRequest, 'signal'>> {
  const get = async (wanted: ContentRef): Promise<unknown> => {
    const value = await read(wanted);
    if (value === undefined) throw new Error(`The recording lacks the content ${wanted}.`);
    return value;
  };
  const recorded = (await get(ref)) as RecordedRequest;
  const text = async (value: unknown): Promise<unknown> =>
    value && typeof value === 'object' && 'ref' in value ? get((value as RecordedText).ref) : value;
  const messages = await Promise.all(
    recorded.messages.map(async (messageRef) => {
      const message = (await get(messageRef)) as RecordedMessage;
      const content = await Promise.all(
        message.content.map(async (part) => {
          const whole: Record<string, unknown> = { ...part };
          for (const field of ['text', 'output'] as const) if (field in whole) whole[field] = await text(whole[field]);
          return whole;
        }),
      );
      return { role: message.role, content } as unknown as ModelMessage;
    }),
  );
  return {
    model: recorded.model,
    system: (await get(recorded.system)) as string,
    tools: (await Promise.all(recorded.tools.map(get))) as ToolDefinition[],
    messages,
    ...(recorded.toolChoice ? { toolChoice: recorded.toolChoice } : {}),
    maxOutputTokens: recorded.maxOutputTokens,
  };
}
