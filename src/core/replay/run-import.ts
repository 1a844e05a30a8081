/**
 * Importing a shared run (run-export.ts) — untrusted input from another machine. Everything is
 * checked before anything is stored, so a refused file changes nothing: its size and nesting
 * depth before it is parsed (depth by a scan of the bytes, without recursion), its format and
 * version, every ref against the SHA-256 of its content (recomputed; a mismatch is refused by
 * naming the ref), each value's size and the number of values, refs given twice, the paths the
 * tool steps name (data only, never written anywhere, but a path that climbs out of its root or
 * is absolute is not one a real run changed), and the recording as a replay reads it (every
 * piece of content it needs is there). Secrets are redacted again as on export.
 *
 * An imported run never touches the world: it is stored as a new conversation marked
 * `importedRun`, with none of the original's settings (an approval mode or an allow rule there
 * would not be the user's), and replay runs it with recorded tools only (recorded-tools.ts: a
 * call returns what the recording holds). Continuing it, or re-running it from a step, runs
 * tools through the user's own policy and approval gate like any conversation.
 */
import { z } from 'zod';
import { redactValue, type KnownSecrets } from '../llm/redact';
import type { ConversationStore, StoredConversation, StoredMessage } from '../ports';
import { canonicalJson, refOfJson } from './content-hash';
import { prepareRecording, RecordingProblem, type LoadedRecording } from './loaded-recording';
import type { ContentRef, RecordingStore, RunRecording } from './recording';
import { reachableContent, redactRun, RUN_EXPORT_FORMAT, RUN_EXPORT_VERSION } from './run-export';

export interface ImportLimits {
  /** The whole file (checked before it is read, and again on the bytes). */
  maxFileBytes: number;
  /** One piece of content, as canonical JSON. */
  maxValueBytes: number;
  maxContentCount: number;
  maxMessages: number;
  /** Arrays and objects inside one another, counted over the whole file. */
  maxDepth: number;
}

/**
 * Larger than any run the product records (a 200-turn run with a 50 KB file read 100 times is a
 * few MB: content is kept once), small enough to read into memory on any machine.
 */
export const IMPORT_LIMITS: ImportLimits = {
  maxFileBytes: 64 * 1024 * 1024,
  maxValueBytes: 16 * 1024 * 1024,
  maxContentCount: 200_000,
  maxMessages: 100_000,
  // Tool inputs stop at 64 levels; a message and the file around them add a dozen.
  maxDepth: 256,
};

/** An export that passed every check, ready to store (or to replay without storing). */
export interface CheckedRun {
  product: string;
  exportedAt: number;
  conversation: { id: string; title: string; createdAt: number; updatedAt: number };
  messages?: Array<{ seq: number; role: StoredMessage['role']; content: unknown; createdAt: number }>;
  recording: RunRecording;
  /** Exactly the content the recording reaches. */
  content: Map<ContentRef, unknown>;
  loaded: LoadedRecording;
  /** Values the redaction changed (0 for a file OpenAgent wrote). */
  redacted: number;
}

const ref = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a content reference (sha256:<64 hex>)');
const text = z.string().max(100_000);
const time = z.number().finite();

function fileSchema(limits: ImportLimits) {
  return z.object({
    format: z.literal(RUN_EXPORT_FORMAT),
    version: z.literal(RUN_EXPORT_VERSION),
    product: text,
    exportedAt: time,
    conversation: z.object({ id: text.min(1), title: text, createdAt: time, updatedAt: time }),
    messages: z
      .array(
        z.object({
          seq: z.number().int().nonnegative(),
          role: z.enum(['user', 'assistant', 'event']),
          content: z.unknown(),
          createdAt: time,
        }),
      )
      .max(limits.maxMessages)
      .optional(),
    recording: z.unknown(),
    content: z.array(z.object({ ref, value: z.unknown() })).max(limits.maxContentCount),
  });
}

/** Checks an export file's bytes; a RecordingProblem (words for the user) for anything wrong. */
export async function checkRunExport(
  bytes: Uint8Array,
  options: { limits?: ImportLimits; knownSecrets?: KnownSecrets } = {},
): Promise<CheckedRun> {
  const limits = options.limits ?? IMPORT_LIMITS;
  if (bytes.length > limits.maxFileBytes)
    throw new RecordingProblem(
      `The file is ${megabytes(bytes.length)}: larger than an export may be (${megabytes(limits.maxFileBytes)}).`,
    );
  if (bytes.length === 0) throw new RecordingProblem('The file is empty: it is not a run export.');
  const deep = tooDeepAt(bytes, limits.maxDepth);
  if (deep !== undefined)
    throw new RecordingProblem(
      `The file nests more than ${limits.maxDepth} levels deep (at byte ${deep}): it is not a run export OpenAgent wrote.`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : 'it is not UTF-8 text';
    throw new RecordingProblem(`The file is damaged or cut short: ${why.slice(0, 200)}. Nothing was imported.`);
  }
  checkVersion(raw);
  const shaped = fileSchema(limits).safeParse(raw);
  if (!shaped.success) {
    const issue = shaped.error.issues[0];
    const where = issue?.path.length ? issue.path.slice(0, 6).join('.') : 'the file';
    throw new RecordingProblem(
      `The file is not a run export: ${where}: ${issue?.message ?? 'unexpected shape'}.`.slice(0, 400),
    );
  }
  const file = shaped.data;
  const content = verifiedContent(file.content, limits);
  const recording = file.recording as RunRecording;
  // Exactly what the recording reaches is kept (anything else in the file is left out).
  const reached = await reachableContent(recording, (contentRef) => content.get(contentRef));
  // Shape, format, and every piece of content a replay needs: refused by name when one lacks.
  await prepareRecording(recording, (contentRef) => reached.get(contentRef));
  checkPaths(recording);
  const safe = redactRun(recording, reached, options.knownSecrets);
  const loaded = await prepareRecording(safe.recording, (contentRef) => safe.content.get(contentRef));
  return {
    product: file.product,
    exportedAt: file.exportedAt,
    conversation: file.conversation,
    ...(file.messages ? { messages: file.messages } : {}),
    recording: safe.recording,
    content: safe.content,
    loaded,
    redacted: safe.redacted,
  };
}

function checkVersion(raw: unknown): void {
  const head = raw as { format?: unknown; version?: unknown } | null;
  if (!head || typeof head !== 'object' || Array.isArray(head) || head.format !== RUN_EXPORT_FORMAT)
    throw new RecordingProblem(
      `The file is not an OpenAgent run export (it does not say "format": "${RUN_EXPORT_FORMAT}").`,
    );
  if (typeof head.version === 'number' && head.version > RUN_EXPORT_VERSION)
    throw new RecordingProblem(
      `The file is a run export of version ${head.version}, made by a newer OpenAgent; this one reads version ${RUN_EXPORT_VERSION}. Update OpenAgent to import it.`,
    );
  if (head.version !== RUN_EXPORT_VERSION)
    throw new RecordingProblem(
      `The file is a run export of an unknown version (${String(head.version).slice(0, 20)}); this OpenAgent reads version ${RUN_EXPORT_VERSION}.`,
    );
}

/** The content by ref, each ref given once and matching the SHA-256 of its value's canonical JSON. */
function verifiedContent(
  entries: ReadonlyArray<{ ref: string; value: unknown }>,
  limits: ImportLimits,
): Map<ContentRef, unknown> {
  const content = new Map<ContentRef, unknown>();
  for (const [index, entry] of entries.entries()) {
    const contentRef = entry.ref as ContentRef;
    if (content.has(contentRef))
      throw new RecordingProblem(
        `The file gives content ${contentRef} twice (entry ${index + 1}): it was changed after export.`,
      );
    if (entry.value === undefined) throw new RecordingProblem(`The file's content ${contentRef} has no value.`);
    const json = canonicalJson(entry.value);
    if (json.length > limits.maxValueBytes)
      throw new RecordingProblem(
        `The file's content ${contentRef} is ${megabytes(json.length)}: larger than one value may be (${megabytes(limits.maxValueBytes)}).`,
      );
    if (refOfJson(json) !== contentRef)
      throw new RecordingProblem(
        `The file's content ${contentRef} does not hash to its ref: the file was changed or damaged after export.`,
      );
    content.set(contentRef, entry.value);
  }
  return content;
}

/**
 * The files tool steps name are relative to the run's root. They are only shown, never written,
 * but one that is absolute or climbs out (`..`) was not changed by a real run: refused.
 */
function checkPaths(recording: RunRecording): void {
  for (const step of recording.steps) {
    if (step.kind !== 'tool' || !step.files) continue;
    for (const file of step.files) {
      const problem = pathProblem(file.path);
      if (problem)
        throw new RecordingProblem(
          `Step ${step.step} names the file ${JSON.stringify(file.path.slice(0, 80))}, which ${problem}: not a path a recorded run changes.`,
        );
    }
  }
}

function pathProblem(file: string): string | undefined {
  if (file.length === 0) return 'is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(file)) return 'holds control characters';
  if (file.startsWith('/') || file.startsWith('\\') || /^[A-Za-z]:/.test(file)) return 'is absolute';
  if (file.split(/[\\/]/).includes('..')) return 'climbs out of its folder (..)';
  return undefined;
}

/**
 * The position of the first byte at which arrays and objects nest deeper than `limit`, or
 * undefined: a scan of the bytes (brackets outside strings), so nothing deep is ever parsed.
 */
export function tooDeepAt(bytes: Uint8Array, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!;
    if (inString) {
      if (byte === 0x5c) index++;
      else if (byte === 0x22) inString = false;
      continue;
    }
    if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return index;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return undefined;
}

/** A store an import writes to: conversations, and recordings beside them. */
export type ImportStore = ConversationStore & { readonly recordings?: RecordingStore };

/** What an imported conversation's settings hold, and nothing else. */
export interface ImportedRunMark {
  /** The conversation's id where it was exported. */
  originalId: string;
  product: string;
  exportedAt: number;
  importedAt: number;
  /** The file's name (not its path), for the user. */
  file?: string;
}

/** Whether a conversation was imported from a file (its recorded approvals are not the user's). */
export function isImportedRun(conversation: Pick<StoredConversation, 'settings'>): boolean {
  const mark = conversation.settings.importedRun as Partial<ImportedRunMark> | undefined;
  return typeof mark === 'object' && mark !== null && typeof mark.originalId === 'string';
}

/**
 * Stores a checked run as a new conversation `id`: the recording first (one batch: its content,
 * manifest and steps are put together), then the conversation and its messages. Should a write
 * fail, what was written is deleted again.
 */
export async function importRun(
  store: ImportStore,
  checked: CheckedRun,
  options: { id: string; now: number; file?: string; knownSecrets?: KnownSecrets },
): Promise<StoredConversation> {
  const recordings = store.recordings;
  if (!recordings) throw new RecordingProblem('This store keeps no recordings: an imported run could not be replayed.');
  const { id, now } = options;
  const mark: ImportedRunMark = {
    originalId: checked.conversation.id,
    product: checked.product,
    exportedAt: checked.exportedAt,
    importedAt: now,
    ...(options.file ? { file: options.file } : {}),
  };
  const conversation: StoredConversation = {
    id,
    title: `${checked.conversation.title || 'Untitled'} (imported)`,
    createdAt: checked.conversation.createdAt,
    updatedAt: now,
    settings: { importedRun: mark },
  };
  try {
    // Not awaited one by one: puts made together are written as one journal entry.
    await Promise.all([
      ...[...checked.content].map(([contentRef, value]) => recordings.putContent(contentRef, value)),
      recordings.saveManifest({ ...checked.recording.manifest, conversationId: id }),
      ...checked.recording.steps.map((step) => recordings.putStep(id, step)),
      // A run that never finished there stays one here (a replay then stops where it stopped).
      ...(checked.recording.unfinished && recordings.markRunning ? [recordings.markRunning(id, true)] : []),
    ]);
    await store.saveConversation(conversation);
    await Promise.all(
      (checked.messages ?? []).map((message) =>
        store.putMessage({
          id: `${id}-${message.seq}`,
          conversationId: id,
          seq: message.seq,
          role: message.role,
          content: redactValue(message.content, options.knownSecrets),
          createdAt: message.createdAt,
        }),
      ),
    );
  } catch (error) {
    await store.deleteConversation(id).catch(() => undefined);
    throw error;
  }
  return conversation;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
