/**
 * The chat's side of images (issue 36): what the composer attached is prepared here — the bytes
 * probed and re-encoded whatever name and type the page claimed (a webview is untrusted) — and the
 * images the transcript and the queue name by sha256 get small previews, read back from the
 * ImageStore. A model that does not take images is said so once per conversation and model.
 */
import type { AgentEvent } from '../../core/events/events';
import type { ImagePart } from '../../core/llm/llm-client';
import type { ImageStore } from '../../core/ports';
import type { AttachedImage, HostToWebview } from '../../protocol/messages';

export interface ChatImageDeps {
  store: ImageStore;
  /** Probes and prepares bytes (prepare-image.ts); throws with the reason for the user. */
  prepare(bytes: Uint8Array, name: string): Promise<ImagePart>;
  /** A small data URL of a stored image, or undefined when none can be made. */
  thumbnail(image: ImagePart): Promise<string | undefined>;
  /** The model the next answer comes from and whether it takes images. */
  modelSeesImages(): { model: string; sees: boolean };
}

/** The most previews kept made (by sha256): a long chat of screenshots does not grow the window. */
const MAX_CACHED_PREVIEWS = 300;

export class ChatImages {
  private readonly previews = new Map<string, Promise<string | undefined>>();
  /** Previews this page already has (cleared when the page is reset). */
  private readonly posted = new Set<string>();
  /** "conversation\u0000model" pairs already told that the model does not take images. */
  private readonly told = new Set<string>();

  constructor(
    private readonly deps: ChatImageDeps,
    private readonly post: (message: HostToWebview) => void,
  ) {}

  /**
   * The composer's images, prepared and kept in the store; the first that cannot be sent refuses
   * them all (the prompt goes back to the composer with its images), with its reason.
   */
  async prepare(attached: readonly AttachedImage[]): Promise<ImagePart[] | { problem: string }> {
    const prepared: ImagePart[] = [];
    for (const [index, image] of attached.entries()) {
      const name = shownName(image.name, index);
      try {
        const bytes = Buffer.from(image.data, 'base64');
        const part = await this.deps.prepare(bytes, name);
        await this.deps.store.put(part);
        prepared.push(part);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { problem: `The prompt was not sent: ${reason}` };
      }
    }
    return prepared;
  }

  /** The page was reset (a reload, another conversation): it has no previews any more. */
  reset(): void {
    this.posted.clear();
  }

  /** Events the page is shown: previews for their images, and the notice for a model that sees none. */
  shown(events: readonly AgentEvent[]): void {
    const wanted: string[] = [];
    for (const event of events) {
      const images = imagesOf(event);
      if (images.length === 0) continue;
      wanted.push(...images.map((image) => image.sha256));
      if (event.type === 'user_message') this.tellIfBlind(event.conversationId);
    }
    void this.postPreviews(wanted);
  }

  /** A queue_state the page is shown: previews for its messages' images. */
  queued(items: ReadonlyArray<{ images?: ReadonlyArray<{ sha256: string }> }>): void {
    void this.postPreviews(items.flatMap((item) => item.images?.map((image) => image.sha256) ?? []));
  }

  private tellIfBlind(conversationId: string): void {
    const { model, sees } = this.deps.modelSeesImages();
    const key = `${conversationId}\u0000${model}`;
    if (sees || this.told.has(key)) return;
    this.told.add(key);
    this.post({
      type: 'chat_notice',
      level: 'info',
      text:
        `${model} does not accept images: it was told what they are, not shown them — ` +
        'set openagent.modelAcceptsImages to "yes" if it does.',
      actions: [{ action: 'open_settings', label: 'Open Settings' }],
    });
  }

  private async postPreviews(sha256s: readonly string[]): Promise<void> {
    const fresh = [...new Set(sha256s)].filter((sha256) => !this.posted.has(sha256));
    if (fresh.length === 0) return;
    for (const sha256 of fresh) this.posted.add(sha256);
    const made = await Promise.all(fresh.map(async (sha256) => ({ sha256, url: await this.preview(sha256) })));
    const previews = made.filter((item): item is { sha256: string; url: string } => item.url !== undefined);
    for (let start = 0; start < previews.length; start += 50)
      this.post({ type: 'image_previews', previews: previews.slice(start, start + 50) });
  }

  private preview(sha256: string): Promise<string | undefined> {
    let made = this.previews.get(sha256);
    if (!made) {
      made = this.deps.store.get(sha256).then(
        (image) => (image ? this.deps.thumbnail(image) : undefined),
        () => undefined,
      );
      this.previews.set(sha256, made);
      if (this.previews.size > MAX_CACHED_PREVIEWS) this.previews.delete(this.previews.keys().next().value as string);
    }
    return made;
  }
}

/** The images an event names: a prompt's, or a tool result's (read_file of a picture). */
export function imagesOf(event: AgentEvent): ReadonlyArray<{ sha256: string }> {
  if (event.type !== 'user_message' && event.type !== 'tool_result') return [];
  const images = (event as { images?: unknown }).images;
  return Array.isArray(images) ? (images as Array<{ sha256: string }>) : [];
}

/** A name fit for a message: no control characters, not too long; a paste has none ("image 1"). */
export function shownName(name: string, index: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  if (!clean) return `image ${index + 1}`;
  return clean.length > 80 ? `${clean.slice(0, 79)}…` : clean;
}
