/**
 * Keeps the images of queued messages in the store while they wait (issue 36's leftover). A
 * queued message is not in its conversation yet, so no conversation uses its images; without a
 * use of their own, deleting any conversation (which frees every image nothing uses) would take
 * them, and a window reloaded after that would have only their names. So the images of the
 * messages queued for a conversation are used by its queue holder (queuedImagesHolder): put
 * under it as they are queued, released as the messages go — sent (their conversation then uses
 * them), removed, or left behind by New Chat. The same image in two messages is held while
 * either waits. Releasing drops the use only: the bytes are freed with the next conversation
 * deleted, never while a message taken out to be sent is on its way.
 *
 * One write at a time, of the newest state; a store that fails is told (for a log) and tried
 * again at the next change — the queue itself never waits for the store.
 */
import type { ImageStore } from '../ports';
import { queuedImagesHolder } from '../images/image-limits';
import type { ConversationSession } from './conversation-session';

export class QueuedImageHolds {
  /** What this window has put under each holder (a holder it has not written yet is absent). */
  private readonly held = new Map<string, Set<string>>();
  private syncing: Promise<void> | undefined;
  private again = false;
  private heldConversation: string | undefined;
  private readonly unsubscribe: Array<() => void>;

  constructor(
    private readonly session: ConversationSession,
    private readonly store: () => Promise<ImageStore | undefined>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.unsubscribe = [
      session.queue.onChange(() => this.sync()),
      session.onReset(() => this.sync()),
      // The first prompt's conversation gets its id once its run is set up: what was queued
      // meanwhile is held from then.
      session.onEvent(() => {
        if (session.currentId !== this.heldConversation) this.sync();
      }),
    ];
  }

  /** Resolves when every change so far is written (or failed). */
  async flush(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  dispose(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  private sync(): void {
    if (this.syncing) {
      this.again = true;
      return;
    }
    this.syncing = this.write()
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.syncing = undefined;
        if (!this.again) return;
        this.again = false;
        this.sync();
      });
  }

  private async write(): Promise<void> {
    // Nothing queued with images and nothing held: the store is not even asked (it may not be open).
    const idle = this.session.queue.attachedImages.length === 0 && ![...this.held.values()].some((set) => set.size > 0);
    if (idle) {
      this.heldConversation = this.session.currentId;
      return;
    }
    const store = await this.store();
    // A store without uses (in memory) frees nothing by deletion, and keeps nothing across a reload.
    if (!store?.release) return;
    // Read after the wait: the session's state now, not when the change was heard.
    const conversationId = this.session.currentId;
    this.heldConversation = conversationId;
    const holder = conversationId === undefined ? undefined : queuedImagesHolder(conversationId);
    const images = holder ? this.session.queue.attachedImages : [];
    for (const [other, sha256s] of this.held) {
      if (other === holder) continue;
      // Another conversation's queue (New Chat, another conversation opened): its images are let go.
      if (sha256s.size > 0) await store.release(other, []);
      this.held.delete(other);
    }
    if (!holder) return;
    const first = !this.held.has(holder);
    const put = this.held.get(holder) ?? new Set<string>();
    this.held.set(holder, put);
    for (const image of images) {
      if (put.has(image.sha256)) continue;
      try {
        await store.put(image, holder);
      } catch (error) {
        // One image the store refuses (its bytes are not what they claim) does not stop the rest.
        this.onError(error);
      }
      put.add(image.sha256);
    }
    const wanted = new Set(images.map((image) => image.sha256));
    // The first time after a reload, uses left from before it (a removal whose release never
    // got written) go too — but only when something waits, so a chat without a queue writes nothing.
    const stale = [...put].some((sha256) => !wanted.has(sha256));
    if (stale || (first && wanted.size > 0)) {
      await store.release(holder, [...wanted]);
      for (const sha256 of put) if (!wanted.has(sha256)) put.delete(sha256);
    }
  }
}
