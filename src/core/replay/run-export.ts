/**
 * A recorded run as one file to share (SPEC: replay and compare, "share a run"): the recording,
 * exactly the content it refers to (followed through requests kept by parts and long texts kept
 * in pieces), the conversation's title and its messages. Everything in a recording was redacted
 * when it was recorded; the export looks again with the product's redaction (key-shaped strings,
 * secret-named fields, the secrets held now) before anything is written, because a file leaves
 * the machine. A value redaction changes gets a new ref, and so does every value and step that
 * refers to it, so the file stays content-addressed and imports anywhere.
 */
import { redactValue, type KnownSecrets } from '../llm/redact';
import type { StoredConversation, StoredMessage } from '../ports';
import { canonicalJson, contentOf, isContentRef } from './content-hash';
import { prepareRecording, RecordingProblem } from './loaded-recording';
import type { ContentRef, RecordingStore, RunRecording } from './recording';

/** What an export file says it is. */
export const RUN_EXPORT_FORMAT = 'openagent.run';
/** The version of the export file's layout (the recording inside has its own, RECORDING_FORMAT). */
export const RUN_EXPORT_VERSION = 1;

/** One exported run: everything `openagent import-run` needs, nothing else. */
export interface RunExport {
  format: typeof RUN_EXPORT_FORMAT;
  version: typeof RUN_EXPORT_VERSION;
  /** The product's version that wrote the file. */
  product: string;
  exportedAt: number;
  /** The conversation as it was: its id there, its title and times (never its settings). */
  conversation: { id: string; title: string; createdAt: number; updatedAt: number };
  /** The conversation's stored messages in order (absent: only the recording was exported). */
  messages?: Array<{ seq: number; role: StoredMessage['role']; content: unknown; createdAt: number }>;
  recording: RunRecording;
  /**
   * Every piece of content the recording reaches, once each. A list rather than an object keyed
   * by ref: a ref given twice is then seen (JSON keeps only the last of two equal keys).
   */
  content: Array<{ ref: ContentRef; value: unknown }>;
}

const REF_IN_TEXT = /sha256:[0-9a-f]{64}/g;

/** Every ref a value names, anywhere in it (a step's field, a request's parts, a text's pieces). */
export function refsNamedIn(value: unknown): ContentRef[] {
  return [...new Set(canonicalJson(value).match(REF_IN_TEXT) ?? [])] as ContentRef[];
}

/**
 * The content `recording` reaches: what its manifest and steps name, and what that content names
 * in turn. A ref-shaped text the store has no content for (a hash a user pasted) is not content.
 */
export async function reachableContent(
  recording: RunRecording,
  getContent: (ref: ContentRef) => Promise<unknown> | unknown,
): Promise<Map<ContentRef, unknown>> {
  const found = new Map<ContentRef, unknown>();
  const seen = new Set<ContentRef>();
  let wave = refsNamedIn(recording);
  while (wave.length > 0) {
    const next: ContentRef[] = [];
    const values = await Promise.all(wave.map((ref) => Promise.resolve(getContent(ref)).catch(() => undefined)));
    wave.forEach((ref, index) => {
      const value = values[index];
      if (value === undefined) return;
      found.set(ref, value);
      for (const child of refsNamedIn(value))
        if (!seen.has(child)) {
          seen.add(child);
          next.push(child);
        }
    });
    for (const ref of wave) seen.add(ref);
    wave = next.filter((ref) => !found.has(ref));
  }
  return found;
}

/**
 * The recording and its content with secrets redacted again. A value redaction changes is kept
 * under its new ref, and every value and step naming the old ref is rewritten to the new one
 * (again until nothing changes: a request names messages, which name long texts).
 */
export function redactRun(
  recording: RunRecording,
  content: ReadonlyMap<ContentRef, unknown>,
  known: KnownSecrets = [],
): { recording: RunRecording; content: Map<ContentRef, unknown>; redacted: number } {
  const redacted = new Map<ContentRef, unknown>();
  let changed = 0;
  for (const [ref, value] of content) {
    const safe = redactValue(value, known);
    redacted.set(ref, safe);
    if (contentOf(safe).ref !== ref) changed++;
  }
  const renamed = new Map<ContentRef, ContentRef>();
  let current = redacted;
  if (changed > 0) {
    // Each round may rename parents of what the last one renamed; the depth of refs is small.
    for (let round = 0; round <= content.size; round++) {
      let grew = false;
      const next = new Map<ContentRef, unknown>();
      for (const [ref, value] of redacted) {
        const swapped = renamed.size > 0 ? swapRefs(value, renamed) : value;
        next.set(ref, swapped);
        const fresh = contentOf(swapped).ref;
        if (fresh !== ref && renamed.get(ref) !== fresh) {
          renamed.set(ref, fresh);
          grew = true;
        }
      }
      current = next;
      if (!grew) break;
    }
  }
  const out = new Map<ContentRef, unknown>();
  for (const [ref, value] of current) out.set(renamed.get(ref) ?? ref, value);
  const safeRecording = redactValue(recording, known);
  return {
    recording: renamed.size > 0 ? swapRefs(safeRecording, renamed) : safeRecording,
    content: out,
    redacted: changed,
  };
}

/** A copy of `value` with every string that is a renamed ref replaced (walked without recursion). */
function swapRefs<T>(value: T, renamed: ReadonlyMap<ContentRef, ContentRef>): T {
  const swap = (node: unknown): unknown =>
    typeof node === 'string' && isContentRef(node) ? (renamed.get(node) ?? node) : node;
  if (typeof value !== 'object' || value === null) return swap(value) as T;
  const root: unknown = Array.isArray(value) ? [] : {};
  const pending: Array<[unknown, unknown]> = [[value, root]];
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    for (const [key, child] of Object.entries(from as object)) {
      let copy: unknown = swap(child);
      if (typeof child === 'object' && child !== null) {
        copy = Array.isArray(child) ? [] : {};
        pending.push([child, copy]);
      }
      Object.defineProperty(to, Array.isArray(to) ? Number(key) : key, {
        value: copy,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root as T;
}

export interface ExportSource {
  recordings: RecordingStore;
  conversation: StoredConversation;
  /** The conversation's messages (left out of the file when absent). */
  messages?: readonly StoredMessage[];
}

/**
 * The export of a conversation's recorded run. Refused (RecordingProblem) when the conversation
 * has no recording, or one that lacks content: a file that cannot be replayed is not written.
 */
export async function buildRunExport(
  source: ExportSource,
  options: { product: string; now: number; knownSecrets?: KnownSecrets },
): Promise<{ exported: RunExport; redacted: number }> {
  const { conversation } = source;
  const stored = await source.recordings.getRecording(conversation.id);
  if (!stored)
    throw new RecordingProblem(
      `Conversation ${conversation.id} has no recording: it ran before recording existed, or recording was off.`,
    );
  const reached = await reachableContent(stored, (ref) => source.recordings.getContent(ref));
  // The same checks an import makes: a recording that lacks something is refused here, by name.
  await prepareRecording(stored, (ref) => reached.get(ref));
  const safe = redactRun(stored, reached, options.knownSecrets);
  const messages = source.messages?.map((message) => ({
    seq: message.seq,
    role: message.role,
    content: redactValue(message.content, options.knownSecrets),
    createdAt: message.createdAt,
  }));
  return {
    exported: {
      format: RUN_EXPORT_FORMAT,
      version: RUN_EXPORT_VERSION,
      product: options.product,
      exportedAt: options.now,
      conversation: {
        id: conversation.id,
        title: redactValue(conversation.title, options.knownSecrets),
        createdAt: conversation.createdAt,
        updatedAt: conversation.updatedAt,
      },
      ...(messages ? { messages } : {}),
      recording: safe.recording,
      content: [...safe.content].map(([ref, value]) => ({ ref, value })),
    },
    redacted: safe.redacted,
  };
}

/** The file's text: canonical JSON, written without recursion (a deep tool input cannot overflow it). */
export function runExportText(exported: RunExport): string {
  return `${canonicalJson(exported)}\n`;
}
