/**
 * The saved conversations (SPEC 2.7 history): listed newest first and searched, renamed,
 * deleted, and loaded to be reopened. The store is opened on first use; without one (it could
 * not be opened, already reported) the library is empty.
 */
import type { ConversationStore, ImageStore, StoredConversation } from '../ports';
import { restoreConversation, type RestoredConversation } from './restore';
import { withStoredImages } from '../images/stored-images';

export class ConversationLibrary {
  constructor(private readonly openStore: () => Promise<ConversationStore | undefined>) {}

  /** Saved conversations, newest first; `search` matches titles and text. */
  async list(options: { search?: string; limit?: number } = {}): Promise<StoredConversation[]> {
    const store = await this.openStore();
    return (await store?.listConversations({ limit: options.limit ?? 200, search: options.search || undefined })) ?? [];
  }

  /** A saved conversation with what is needed to show it and continue it; undefined when not saved. */
  async load(id: string): Promise<{ conversation: StoredConversation; restored: RestoredConversation } | undefined> {
    const store = await this.openStore();
    const conversation = await store?.getConversation(id);
    if (!store || !conversation) return undefined;
    const restored = restoreConversation(id, await store.listMessages(id));
    // The images its events name, read back (or a note where one is gone): a continued conversation sends them.
    return { conversation, restored: { ...restored, history: await withStoredImages(restored.history, store.images) } };
  }

  /** The images conversations use, kept once by sha256 (the chat and the panel read them here). */
  async images(): Promise<ImageStore | undefined> {
    return (await this.openStore())?.images;
  }

  async rename(id: string, title: string): Promise<void> {
    const store = await this.openStore();
    const stored = await store?.getConversation(id);
    if (store && stored) await store.saveConversation({ ...stored, title: title.trim() || stored.title });
  }

  async delete(id: string): Promise<void> {
    const store = await this.openStore();
    await store?.deleteConversation(id);
  }
}
