/**
 * Messages the user sent while the agent was working (SPEC 1.1): they wait here, in order, and
 * the session sends the first one each time a run ends normally. The user can edit or remove
 * any of them until it is sent; one being edited is never sent half-edited (the queue waits
 * for it). A run that ends badly — stopped by the user, failed — or a window reload *holds* the
 * queue: nothing fires into a run the user has not seen end well, until they resume it or send
 * one of its messages themselves. Both surfaces (the chat and the CLI) share this one queue.
 */
import type { MentionResolver } from './mentions';
import type { ImagePart } from '../llm/llm-client';
import { imageReference, type ImageReference } from '../images/user-images';

/** The most messages that can wait at once. */
export const MAX_QUEUED_PROMPTS = 20;
/** The longest queued message (characters), the same as the longest prompt the chat accepts. */
export const MAX_QUEUED_PROMPT_CHARS = 200_000;
/** All queued messages together (characters): a queue is a handful of follow-ups, not a file store. */
export const MAX_QUEUED_TOTAL_CHARS = 1_000_000;

/** Why the queue waits instead of sending: the run was stopped, it failed, or the window reloaded. */
export type QueueHold = 'stopped' | 'failed' | 'reloaded';

/** A queued message as surfaces show it. */
export interface QueuedPrompt {
  readonly id: string;
  readonly text: string;
  /** The images attached to it (issue 36), as the chat shows them: never their bytes. */
  readonly images?: readonly ImageReference[];
}

export interface QueueState {
  readonly items: readonly QueuedPrompt[];
  /** Set while the queue waits for the user (see QueueHold); `reason` says what happened, in words. */
  readonly held?: { kind: QueueHold; reason?: string };
  /** The message being edited, if any: the queue does not send past it. */
  readonly editing?: string;
}

/** Why a message could not be queued or changed, in words for the user. */
export interface QueueRefusal {
  reason: 'queue_full' | 'too_long' | 'empty';
  message: string;
}

/** A queued message with how to resolve its @mentions when it is sent (not kept across reloads). */
export interface QueueEntry extends QueuedPrompt {
  readonly resolve?: MentionResolver;
  /** The prepared images it goes out with (kept with it while it waits, edited or not). */
  readonly attached?: readonly ImagePart[];
}

/** A message kept across a reload, with its images read back from the store. */
export interface RestoredPrompt {
  readonly text: string;
  readonly attached?: readonly ImagePart[];
}

/** What `setAside` took out of the queue. */
export interface QueueSnapshot {
  readonly entries: readonly QueueEntry[];
  readonly held?: QueueState['held'];
}

export class PromptQueue {
  private entries: QueueEntry[] = [];
  private held: QueueState['held'];
  private editing: string | undefined;
  private counter = 0;
  private readonly listeners = new Set<(state: QueueState) => void>();

  get state(): QueueState {
    return {
      items: this.entries.map(({ id, text, images }) => ({ id, text, ...(images ? { images } : {}) })),
      ...(this.held ? { held: this.held } : {}),
      ...(this.editing ? { editing: this.editing } : {}),
    };
  }

  get length(): number {
    return this.entries.length;
  }

  get isHeld(): boolean {
    return this.held !== undefined;
  }

  onChange(listener: (state: QueueState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Queues a message at the end; a refusal (and nothing queued) when it cannot wait here. */
  add(text: string, resolve?: MentionResolver, attached?: readonly ImagePart[]): QueuedPrompt | QueueRefusal {
    const refusal = this.check(text, 0);
    if (refusal) return refusal;
    if (this.entries.length >= MAX_QUEUED_PROMPTS)
      return {
        reason: 'queue_full',
        message: `${MAX_QUEUED_PROMPTS} messages are already waiting: remove one, or send one now.`,
      };
    const entry: QueueEntry = {
      id: `q${++this.counter}`,
      text: text.trim(),
      ...(resolve ? { resolve } : {}),
      ...(attached?.length ? { attached, images: attached.map(imageReference) } : {}),
    };
    this.entries.push(entry);
    this.changed();
    return { id: entry.id, text: entry.text, ...(entry.images ? { images: entry.images } : {}) };
  }

  /**
   * Replaces a waiting message's text. 'gone' when it was sent (or removed) before the edit
   * arrived — the caller hands the edited text back to the user, so nothing typed is lost.
   */
  edit(id: string, text: string): 'edited' | 'gone' | QueueRefusal {
    const index = this.entries.findIndex((entry) => entry.id === id);
    if (index < 0) return 'gone';
    const refusal = this.check(text, this.entries[index]!.text.length);
    if (refusal) return refusal;
    this.entries[index] = { ...this.entries[index]!, text: text.trim() };
    if (this.editing === id) this.editing = undefined;
    this.changed();
    return 'edited';
  }

  /** Removes a waiting message; false when it is no longer waiting. */
  remove(id: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((entry) => entry.id !== id);
    if (this.entries.length === before) return false;
    if (this.editing === id) this.editing = undefined;
    if (this.entries.length === 0) this.held = undefined;
    this.changed();
    return true;
  }

  /** Marks a message as being edited (undefined: none). Marking one that is gone does nothing. */
  setEditing(id: string | undefined): void {
    const next = id !== undefined && this.entries.some((entry) => entry.id === id) ? id : undefined;
    if (next === this.editing) return;
    this.editing = next;
    this.changed();
  }

  /** The next message to send after a normal end: none while held, or while the first is being edited. */
  takeNext(): QueueEntry | undefined {
    const first = this.entries[0];
    if (!first || this.held || this.editing === first.id) return undefined;
    return this.take(first.id);
  }

  /** Takes one message out to send it now, whatever the hold (the user asked for it). */
  take(id: string): QueueEntry | undefined {
    const entry = this.entries.find((candidate) => candidate.id === id);
    if (!entry) return undefined;
    this.entries = this.entries.filter((candidate) => candidate !== entry);
    if (this.editing === id) this.editing = undefined;
    if (this.entries.length === 0) this.held = undefined;
    this.changed();
    return entry;
  }

  /** Puts a message that could not be sent back at the front, as it was. */
  putBack(entry: QueueEntry): void {
    this.entries.unshift(entry);
    this.changed();
  }

  /** Makes the queue wait for the user. An empty queue has nothing to hold. */
  hold(kind: QueueHold, reason?: string): void {
    if (this.entries.length === 0) return;
    this.held = { kind, ...(reason ? { reason } : {}) };
    this.changed();
  }

  /** The user lets the queue go on: the session sends the next message when it is free. */
  resume(): void {
    if (!this.held) return;
    this.held = undefined;
    this.changed();
  }

  /** Forgets every message (a new chat; another conversation opened). */
  clear(): void {
    if (this.entries.length === 0 && !this.held && !this.editing) return;
    this.entries = [];
    this.held = undefined;
    this.editing = undefined;
    this.changed();
  }

  /**
   * Puts back messages kept across a window reload, held (the run they waited for is gone), with
   * the images read back for them; texts that no longer fit are dropped rather than let one bad
   * entry break the chat.
   */
  restore(kept: ReadonlyArray<string | RestoredPrompt>, resolve?: MentionResolver): void {
    this.entries = [];
    this.editing = undefined;
    let total = 0;
    for (const item of kept) {
      if (this.entries.length >= MAX_QUEUED_PROMPTS) break;
      const { text, attached } = typeof item === 'string' ? { text: item, attached: undefined } : item;
      const trimmed = text.trim();
      if (!trimmed || trimmed.length > MAX_QUEUED_PROMPT_CHARS || total + trimmed.length > MAX_QUEUED_TOTAL_CHARS)
        continue;
      total += trimmed.length;
      this.entries.push({
        id: `q${++this.counter}`,
        text: trimmed,
        ...(resolve ? { resolve } : {}),
        ...(attached?.length ? { attached, images: attached.map(imageReference) } : {}),
      });
    }
    this.held = this.entries.length > 0 ? { kind: 'reloaded' } : undefined;
    this.changed();
  }

  /** The images the waiting messages carry, each once (what a store must keep for them). */
  get attachedImages(): ImagePart[] {
    const images = new Map<string, ImagePart>();
    for (const entry of this.entries) for (const image of entry.attached ?? []) images.set(image.sha256, image);
    return [...images.values()];
  }

  /**
   * Takes everything out without telling anyone (the conversation on screen is reopened: a
   * rewind); `bringBack` puts it back. Between the two the queue looks empty and nothing changes.
   */
  setAside(): QueueSnapshot {
    const snapshot = { entries: this.entries, ...(this.held ? { held: this.held } : {}) };
    this.entries = [];
    this.held = undefined;
    this.editing = undefined;
    return snapshot;
  }

  /** Puts back what `setAside` took, in front of anything queued since; the page shows it again. */
  bringBack(snapshot: QueueSnapshot): void {
    if (snapshot.entries.length === 0) return;
    this.entries = [...snapshot.entries, ...this.entries];
    this.held ??= snapshot.held;
    this.changed();
  }

  /** Whether `text` may replace `replacing` characters of the queue. */
  private check(text: string, replacing: number): QueueRefusal | undefined {
    const trimmed = text.trim();
    if (!trimmed) return { reason: 'empty', message: 'An empty message cannot be queued.' };
    if (trimmed.length > MAX_QUEUED_PROMPT_CHARS)
      return {
        reason: 'too_long',
        message: `The message is ${trimmed.length.toLocaleString('en-US')} characters; at most ${MAX_QUEUED_PROMPT_CHARS.toLocaleString('en-US')} can be queued. Attach large text with @file instead.`,
      };
    const total = this.entries.reduce((sum, entry) => sum + entry.text.length, 0) - replacing + trimmed.length;
    if (total > MAX_QUEUED_TOTAL_CHARS)
      return {
        reason: 'too_long',
        message: `The waiting messages would hold more than ${MAX_QUEUED_TOTAL_CHARS.toLocaleString('en-US')} characters: send or remove some first.`,
      };
    return undefined;
  }

  private changed(): void {
    const state = this.state;
    for (const listener of this.listeners) {
      try {
        listener(state);
      } catch {
        // A faulty surface must not break the queue or the other surfaces.
      }
    }
  }
}
