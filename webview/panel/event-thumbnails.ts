/**
 * Thumbnails in the event inspector (issue 36): a user_message or tool_result row shows small
 * pictures of the images it names. Events carry references (sha256, size, name), never bytes, so
 * a row asks the host for its thumbnails only once it is on screen (an IntersectionObserver), a
 * few per event; answers are kept by sha256 (bounded) and fill every row waiting for them. What
 * the host sends is checked again here: only `data:image/…;base64,` URLs reach an <img> (the
 * CSP allows data: for images and nothing else), and names are text, never markup.
 */
import type { AgentEvent } from '../../src/protocol/events';
import type { PanelThumbnail } from '../../src/protocol/messages';
import { el } from './dom';

/** The most thumbnails one row shows; the rest are counted ("+14 more"), the row's text lists all. */
export const MAX_THUMBNAILS_PER_EVENT = 6;
/** The box a thumbnail is drawn in (CSS pixels); the host makes them at most 160 px a side. */
export const THUMBNAIL_PX = 96;
/** The most answers kept (a thumbnail is a few kilobytes). */
const MAX_KEPT = 300;
/** The most sha256s one request asks for (MAX_THUMBNAILS_PER_MESSAGE in the protocol). */
const MAX_PER_REQUEST = 48;

interface ImageReference {
  sha256: string;
  width: number;
  height: number;
  mediaType?: string;
  name?: string;
}

type Answer = { url: string } | { problem: 'gone' | 'no_preview' };

const SHA256 = /^[0-9a-f]{64}$/;
const IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

export class EventThumbnails {
  private readonly kept = new Map<string, Answer>();
  /** Asked for and not answered yet (cleared on reset: a host that went away never answers). */
  private readonly asked = new Set<string>();
  /** To be asked for in the next request (one per task, whatever number of rows came into view). */
  private readonly toAsk = new Set<string>();
  private readonly observed = new Set<Element>();
  private readonly observer: IntersectionObserver;

  constructor(private readonly request: (sha256s: string[]) => void) {
    this.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        this.observer.unobserve(entry.target);
        this.observed.delete(entry.target);
        this.ask(entry.target as HTMLElement);
      }
    });
  }

  /** The row of thumbnails for an event that names images, or undefined for any other event. */
  strip(event: AgentEvent): HTMLElement | undefined {
    if (event.type !== 'user_message' && event.type !== 'tool_result') return undefined;
    const images = (event.images ?? []) as ImageReference[];
    if (images.length === 0) return undefined;
    const strip = el('span', 'event-thumbnails');
    let waiting = false;
    for (const image of images.slice(0, MAX_THUMBNAILS_PER_EVENT)) {
      const cell = el('span', 'event-thumbnail');
      const label = `${image.name ?? 'image'} (${image.width}×${image.height})`;
      cell.title = label;
      cell.append(el('span', 'thumbnail-picture'), el('span', 'thumbnail-name', image.name ?? 'image'));
      if (SHA256.test(image.sha256)) {
        cell.dataset.sha256 = image.sha256;
        const answer = this.kept.get(image.sha256);
        if (answer) fill(cell, answer);
        else {
          cell.dataset.state = 'loading';
          waiting = true;
        }
      } else fill(cell, { problem: 'no_preview' });
      sizeBox(cell, image);
      strip.append(cell);
    }
    if (images.length > MAX_THUMBNAILS_PER_EVENT)
      strip.append(el('span', 'muted thumbnail-more', `+${images.length - MAX_THUMBNAILS_PER_EVENT} more`));
    if (waiting) this.watch(strip);
    return strip;
  }

  /** The host's answers: kept, and every cell on screen waiting for one filled. */
  receive(thumbnails: readonly PanelThumbnail[]): void {
    for (const thumbnail of thumbnails) {
      if (!SHA256.test(thumbnail.sha256)) continue;
      this.asked.delete(thumbnail.sha256);
      const answer: Answer =
        thumbnail.url !== undefined && IMAGE_DATA_URL.test(thumbnail.url)
          ? { url: thumbnail.url }
          : { problem: thumbnail.problem === 'gone' ? 'gone' : 'no_preview' };
      this.kept.delete(thumbnail.sha256);
      this.kept.set(thumbnail.sha256, answer);
      if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
      for (const cell of document.querySelectorAll<HTMLElement>(`.event-thumbnail[data-sha256="${thumbnail.sha256}"]`))
        fill(cell, answer);
    }
  }

  /**
   * The panel shows a conversation anew: pending questions are forgotten (they may never be
   * answered) and so is what was missing (another conversation's store may have it); the
   * pictures stay, a sha256 is the same picture wherever it is from.
   */
  reset(): void {
    this.asked.clear();
    this.toAsk.clear();
    for (const [sha256, answer] of this.kept) if (!('url' in answer)) this.kept.delete(sha256);
  }

  private watch(strip: HTMLElement): void {
    // Rows the inspector dropped before they were ever seen are let go now and then.
    if (this.observed.size >= 2_000)
      for (const element of this.observed)
        if (!element.isConnected) {
          this.observer.unobserve(element);
          this.observed.delete(element);
        }
    this.observed.add(strip);
    this.observer.observe(strip);
  }

  private ask(strip: HTMLElement): void {
    for (const cell of strip.querySelectorAll<HTMLElement>('.event-thumbnail[data-state="loading"]')) {
      const sha256 = cell.dataset.sha256!;
      if (!this.asked.has(sha256) && !this.kept.has(sha256)) this.toAsk.add(sha256);
    }
    if (this.toAsk.size > 0) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const list = [...this.toAsk];
    this.toAsk.clear();
    for (const sha256 of list) this.asked.add(sha256);
    for (let start = 0; start < list.length; start += MAX_PER_REQUEST)
      this.request(list.slice(start, start + MAX_PER_REQUEST));
  }
}

/** A cell's picture, or the words for why there is none. */
function fill(cell: HTMLElement, answer: Answer): void {
  const slot = cell.querySelector('.thumbnail-picture')!;
  if ('url' in answer) {
    const image = document.createElement('img');
    image.src = answer.url;
    image.alt = cell.title;
    slot.replaceChildren(image);
    cell.dataset.state = 'shown';
  } else {
    slot.replaceChildren(
      el('span', 'thumbnail-missing', answer.problem === 'gone' ? 'no longer stored' : 'no preview'),
    );
    cell.dataset.state = answer.problem;
  }
}

/** The picture's box, scaled from the image's own size, so rows do not jump when it arrives. */
function sizeBox(cell: HTMLElement, image: ImageReference): void {
  const slot = cell.querySelector<HTMLElement>('.thumbnail-picture')!;
  const width = Number.isFinite(image.width) && image.width > 0 ? image.width : 1;
  const height = Number.isFinite(image.height) && image.height > 0 ? image.height : 1;
  const scale = THUMBNAIL_PX / Math.max(width, height);
  slot.style.width = `${Math.max(24, Math.round(width * scale))}px`;
  slot.style.height = `${Math.max(24, Math.round(height * scale))}px`;
}
