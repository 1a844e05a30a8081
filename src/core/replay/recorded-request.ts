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

/** Message refs per page of a recorded request (RecordedRequest.messagePages). */
export const MESSAGE_PAGE = 32;
/** Texts this long or longer are kept of their own, once, however many messages hold them. */
export const LONG_TEXT_CHARS = 1024;
/** Texts this long are kept in pieces cut where their content says (below), so shortened copies share them. */
export const CHUNKED_TEXT_CHARS = 8 * 1024;
const CHUNK_MIN_CHARS = 4 * 1024;
const CHUNK_MAX_CHARS = 16 * 1024;

/**
 * A long text's pieces, cut after lines whose hash ends in five zero bits (and at most every
 * CHUNK_MAX_CHARS): where a cut falls depends on the lines around it, not on where the text
 * starts, so an older tool output the history shortened, or a file read again after an edit,
 * shares every piece but those around the change.
 */
export function chunksOf(text: string): string[] {
  const chunks: string[] = [];
  let start = 0;
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    hash = Math.imul(hash ^ code, 0x01000193) >>> 0;
    if (code !== 10 && index - start < CHUNK_MAX_CHARS) continue;
    const size = index + 1 - start;
    if (size >= CHUNK_MAX_CHARS || (size >= CHUNK_MIN_CHARS && (hash & 0x1f) === 0)) {
      chunks.push(text.slice(start, index + 1));
      start = index + 1;
    }
    if (code === 10) hash = 0x811c9dc5;
  }
  if (start < text.length) chunks.push(text.slice(start));
  return chunks;
}

/** A long text kept once (`{ ref }`), or in pieces each kept once (`{ chunks }`). */
export function keepLongText(text: string, keep: (value: unknown) => ContentRef): RecordedText {
  return text.length >= CHUNKED_TEXT_CHARS ? { chunks: chunksOf(text).map(keep) } : { ref: keep(text) };
}

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
  /** The last request's message pages (one conversation's calls follow one another). */
  private lastPages: Array<{ refs: ContentRef[]; ref: ContentRef }> = [];

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
      messages: [],
      messagePages: this.pagesOf(messages, keep),
      ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
      maxOutputTokens: request.maxOutputTokens,
    };
    return { ref: keep(recorded), contents };
  }

  /** `messages` in pages of MESSAGE_PAGE refs; a page the last request had is not hashed again. */
  private pagesOf(messages: ContentRef[], keep: (value: unknown) => ContentRef): ContentRef[] {
    const pages: Array<{ refs: ContentRef[]; ref: ContentRef }> = [];
    for (let start = 0; start < messages.length; start += MESSAGE_PAGE) {
      const refs = messages.slice(start, start + MESSAGE_PAGE);
      const before = this.lastPages[pages.length];
      const same =
        before && before.refs.length === refs.length && before.refs.every((ref, index) => ref === refs[index]);
      pages.push(same ? before : { refs, ref: keep(refs) });
    }
    this.lastPages = pages;
    return pages.map((page) => page.ref);
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
        if (typeof text === 'string' && text.length >= LONG_TEXT_CHARS) copy[field] = keepLongText(text, keep);
      }
      return copy;
    });
    return { role: message.role, content };
  }
}

/** Reads content by ref (a RecordingStore's getContent). */
export type ContentReader = (ref: ContentRef) => Promise<unknown>;

/** A text as recorded (itself, `{ ref }` or `{ chunks }`), whole again. */
export async function joinText(value: unknown, read: ContentReader): Promise<unknown> {
  if (!value || typeof value !== 'object') return value;
  const get = async (wanted: ContentRef): Promise<string> => {
    const text = await read(wanted);
    if (typeof text !== 'string') throw new Error(`The recording lacks the text ${wanted}.`);
    return text;
  };
  if ('chunks' in value) return (await Promise.all((value as { chunks: ContentRef[] }).chunks.map(get))).join('');
  if ('ref' in value) return get((value as { ref: ContentRef }).ref);
  return value;
}

/** A ToolStep's result (`{ output, isError }`), its output whole again. */
export async function joinToolResult(
  ref: ContentRef,
  read: ContentReader,
): Promise<{ output: string; isError: boolean } | undefined> {
  const result = (await read(ref)) as { output: unknown; isError: boolean } | undefined;
  if (!result) return undefined;
  return { output: String(await joinText(result.output, read)), isError: result.isError };
}

/**
 * The request a ModelStep sent, whole again (without its signal). Throws, naming the ref, when
 * a part is missing from the store: a recording that lost content cannot be replayed silently.
 */
export async function joinRequest(
  ref: ContentRef,
  read: ContentReader,
  /**
   * Messages already joined, by ref: a run's requests repeat the messages before them, so a
   * reader of every request joins each message once (and gets the same object for it).
   */
  joined?: Map<ContentRef, Promise<ModelMessage>>,
): Promise<Omit<LlmRequest, 'signal'>> {
  const get = async (wanted: ContentRef): Promise<unknown> => {
    const value = await read(wanted);
    if (value === undefined) throw new Error(`The recording lacks the content ${wanted}.`);
    return value;
  };
  const recorded = (await get(ref)) as RecordedRequest;
  const messageRefs = recorded.messagePages
    ? (
        await Promise.all(
          recorded.messagePages.map(async (page) => {
            const refs = await get(page);
            if (!Array.isArray(refs) || !refs.every((item) => typeof item === 'string'))
              throw new Error(`The recording's message page ${page} is not a list of refs.`);
            return refs as ContentRef[];
          }),
        )
      ).flat()
    : recorded.messages;
  const text = (value: unknown): Promise<unknown> => joinText(value, read);
  const joinMessage = async (messageRef: ContentRef): Promise<ModelMessage> => {
    const message = (await get(messageRef)) as RecordedMessage;
    const content = await Promise.all(
      message.content.map(async (part) => {
        const whole: Record<string, unknown> = { ...part };
        for (const field of ['text', 'output'] as const) if (field in whole) whole[field] = await text(whole[field]);
        return whole;
      }),
    );
    return { role: message.role, content } as unknown as ModelMessage;
  };
  const messages = await Promise.all(
    messageRefs.map((messageRef) => {
      if (!joined) return joinMessage(messageRef);
      let message = joined.get(messageRef);
      if (!message) joined.set(messageRef, (message = joinMessage(messageRef)));
      return message;
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
