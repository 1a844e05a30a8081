/**
 * The chat that comes back (SPEC 1.1): each window keeps which conversation it shows, the
 * half-typed prompt and the queued messages, and reopens them after a reload or a restart.
 * "New Chat" is kept too: a window that was on a new, empty chat comes back to one (with its
 * draft). The host gives a per-window place to keep one small document (the workspace's
 * storage); anything wrong there — missing, damaged, another workspace's, a conversation since
 * deleted or a store that cannot be read — just means a fresh chat, never an error at startup.
 * Nothing is read until a chat view asks (`restore`), so activation pays nothing for it.
 */
import { z } from 'zod';
import type { ConversationSession } from './conversation-session';
import type { MentionResolver } from './mentions';
import { MAX_QUEUED_PROMPTS, MAX_QUEUED_PROMPT_CHARS } from './prompt-queue';
import { keptQueueImages, readKeptQueue } from './kept-queue';
import { QueuedImageHolds } from './queued-image-holds';

/** Where a window's chat is kept: one small text document (the host's per-workspace storage). */
export interface ChatKeeping {
  /** The document, or undefined when there is none. */
  read(): Promise<string | undefined>;
  /** Replaces it (atomically: a reader sees the old or the new one, never half). */
  write(text: string): Promise<void>;
}

/** The longest draft kept (characters): the longest prompt the chat accepts. */
export const MAX_DRAFT_CHARS = 200_000;

const keptChatSchema = z.object({
  version: z.literal(1),
  /** The folder the window had open: a document copied from elsewhere is not trusted. */
  workspace: z.string().max(4_096),
  conversationId: z.string().min(1).max(200).optional(),
  draft: z.string().max(MAX_DRAFT_CHARS),
  queue: z.array(z.string().max(MAX_QUEUED_PROMPT_CHARS)).max(MAX_QUEUED_PROMPTS),
  /**
   * The queued messages' images, one list of references per message (kept-queue.ts). Checked
   * image by image when read back: a damaged one is a note in its message, not a fresh chat.
   */
  queueImages: z.array(z.unknown()).max(MAX_QUEUED_PROMPTS).optional(),
});
type KeptChat = z.infer<typeof keptChatSchema>;

export interface ChatKeeperOptions {
  session: ConversationSession;
  keeping: ChatKeeping;
  /** The window's folder ('' for a window without one). */
  workspace: string;
  /** Resolves the @mentions of restored queued messages when they are sent. */
  resolveMention?: MentionResolver;
  /** A write that failed (the disk): for a log, not for the user (it is retried at the next change). */
  onWriteError?: (error: unknown) => void;
}

export class ChatKeeper {
  private draftText = '';
  private restoring: Promise<void> | undefined;
  /** Changes are kept only once what was kept has been read back (or found missing). */
  private keeping = false;
  private lastWritten: string | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private readonly unsubscribe: Array<() => void> = [];
  /** The conversation the last snapshot named: events of the same one change nothing kept. */
  private keptConversation: string | undefined;
  /** The queued messages' images, held in the store while they wait (so a reload finds them). */
  readonly imageHolds: QueuedImageHolds;

  constructor(private readonly options: ChatKeeperOptions) {
    const { session } = options;
    this.imageHolds = new QueuedImageHolds(session, () => session.library.images(), options.onWriteError);
    this.unsubscribe.push(
      session.onReset(() => this.save()),
      // Streaming fires this per token: only a new conversation id is worth a write.
      session.onEvent(() => {
        if (session.currentId !== this.keptConversation) this.save();
      }),
      session.queue.onChange(() => this.save()),
    );
  }

  /** The half-typed prompt (as kept, or as last reported by the chat). */
  get draft(): string {
    return this.draftText;
  }

  /** The chat reports its composer's text (debounced by the chat). */
  setDraft(text: string): void {
    const next = text.length > MAX_DRAFT_CHARS ? text.slice(0, MAX_DRAFT_CHARS) : text;
    if (next === this.draftText) return;
    this.draftText = next;
    this.save();
  }

  /**
   * Reopens what the window showed, once (later calls wait for the first). Resolves when the
   * session shows it; never rejects.
   */
  restore(): Promise<void> {
    return (this.restoring ??= this.load().finally(() => {
      this.keeping = true;
      this.save();
    }));
  }

  /** Resolves when everything changed so far is written. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    await this.imageHolds.flush();
  }

  dispose(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
    this.imageHolds.dispose();
  }

  private async load(): Promise<void> {
    const { session } = this.options;
    // A New Chat (or another conversation opened) while this is read wins over it.
    const generation = session.generation;
    const kept = await this.read();
    if (!kept || kept.workspace !== this.options.workspace) return;
    this.draftText = kept.draft;
    if (!kept.conversationId) return;
    // Only into an untouched session: a chat a palette command started meanwhile stays.
    const opened = await session.open(kept.conversationId, { ifUntouchedSince: generation }).catch(() => false);
    // Deleted since, or the store cannot be read (the store says so itself): a fresh chat.
    if (!opened || kept.queue.length === 0) return;
    const reopened = session.generation;
    const images = kept.queueImages && (await session.library.images().catch(() => undefined));
    const restored = await readKeptQueue(kept.queue, kept.queueImages, images);
    // A New Chat (or another conversation) while the images were read: the queue was not for it.
    if (session.generation !== reopened || session.currentId !== kept.conversationId) return;
    session.queue.restore(restored, this.options.resolveMention);
  }

  private async read(): Promise<KeptChat | undefined> {
    try {
      const text = await this.options.keeping.read();
      if (text === undefined || text.length > 2 * (MAX_DRAFT_CHARS + MAX_QUEUED_PROMPTS * MAX_QUEUED_PROMPT_CHARS))
        return undefined;
      const parsed = keptChatSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private snapshot(): string {
    const { session, workspace } = this.options;
    this.keptConversation = session.currentId;
    const kept: KeptChat = {
      version: 1,
      workspace,
      ...(session.currentId ? { conversationId: session.currentId } : {}),
      draft: this.draftText,
      queue: session.queue.state.items.map((item) => item.text),
    };
    const images = keptQueueImages(session.queue.state);
    if (images) kept.queueImages = images;
    return JSON.stringify(kept);
  }

  /** Writes the newest state: one write at a time, the last change always written. */
  private save(): void {
    if (!this.keeping) return;
    if (this.writing) {
      this.dirty = true;
      return;
    }
    const text = this.snapshot();
    if (text === this.lastWritten) return;
    this.writing = this.options.keeping
      .write(text)
      .then(
        () => {
          this.lastWritten = text;
        },
        (error: unknown) => this.options.onWriteError?.(error),
      )
      .finally(() => {
        this.writing = undefined;
        if (!this.dirty) return;
        this.dirty = false;
        this.save();
      });
  }
}
