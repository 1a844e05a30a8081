/**
 * Conversation export and import (JSON and markdown) and audit export (JSONL and CSV). Works on
 * any ConversationStore; imported files are untrusted input and are validated.
 *
 * Images (issue 36): events name images by sha256; the JSON export carries each image's bytes
 * once (base64, in `images`), however many messages use it, and import checks every one (its
 * sha256, its size) before keeping it. The markdown export embeds them as data: URLs, so the one
 * file it is stays whole wherever it is moved or sent (prepared images are at most 4 MB each).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AuditRecord, ConversationStore, ImagePart, StoredConversation, StoredMessage } from '../core/ports';
import { verifiedBytes } from './image-rows';

/**
 * Deeper than any message the product writes (tool arguments stop at 64 levels): a file nesting
 * deeper is not an export of ours, and storing it would overflow the stack.
 */
const MAX_IMPORTED_DEPTH = 256;
/** More images than any conversation the product writes could hold (100 per request, compacted). */
const MAX_IMPORTED_IMAGES = 2_000;

const exportSchema = z.object({
  format: z.literal('openagent.conversation'),
  version: z.literal(1),
  conversation: z.object({
    id: z.string(),
    title: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    settings: z.record(z.string(), z.unknown()),
  }),
  messages: z.array(
    z.object({
      id: z.string(),
      conversationId: z.string(),
      seq: z.number().int(),
      role: z.enum(['user', 'assistant', 'event']),
      content: z.unknown(),
      createdAt: z.number(),
    }),
  ),
  /** The images the messages name, each once (absent in exports written before images). */
  images: z
    .array(
      z.object({
        type: z.literal('image'),
        sha256: z.string(),
        mediaType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
        width: z.number().int().positive(),
        height: z.number().int().positive(),
        name: z.string().optional(),
        data: z.string(),
      }),
    )
    .max(MAX_IMPORTED_IMAGES)
    .optional(),
});

export type ConversationExport = z.infer<typeof exportSchema>;

export async function exportConversation(store: ConversationStore, id: string): Promise<ConversationExport> {
  const conversation = await store.getConversation(id);
  if (!conversation) throw new Error(`There is no conversation ${id}.`);
  const messages = await store.listMessages(id);
  const images: ImagePart[] = [];
  for (const sha256 of imagesNamed(messages)) {
    // An image the store no longer has is left out: the markdown says so where it was.
    const image = await store.images?.get(sha256).catch(() => undefined);
    if (image) images.push(image);
  }
  return {
    format: 'openagent.conversation',
    version: 1,
    conversation,
    messages,
    ...(images.length ? { images } : {}),
  };
}

type ImageReference = { sha256: string; width: number; height: number; name?: string };

/** The image references of a stored message: a prompt's (`content.images`), a tool result's. */
function referencesIn(message: { content: unknown }): ImageReference[] {
  const images = (message.content as { images?: unknown } | null)?.images;
  if (!Array.isArray(images)) return [];
  return images.filter(
    (image): image is ImageReference => typeof (image as { sha256?: unknown } | null)?.sha256 === 'string',
  );
}

/** Every sha256 the messages name, once, in the order they first appear. */
function imagesNamed(messages: readonly { content: unknown }[]): string[] {
  return [...new Set(messages.flatMap((message) => referencesIn(message).map((image) => image.sha256)))];
}

/**
 * Imports an exported conversation as a new one (a fresh id, so nothing existing is replaced).
 * Throws a readable error for anything that is not an OpenAgent conversation export.
 */
export async function importConversation(
  store: ConversationStore,
  json: string,
  now = Date.now(),
): Promise<StoredConversation> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('The file is not JSON.');
  }
  const result = exportSchema.safeParse(parsed);
  if (!result.success)
    throw new Error(
      `The file is not an OpenAgent conversation export: ${result.error.issues[0]?.message ?? 'unknown problem'}.`,
    );
  // Checked before anything is saved: a refused file leaves nothing behind.
  const deep = [result.data.conversation.settings, ...result.data.messages].findIndex((value) =>
    nestsDeeperThan(value, MAX_IMPORTED_DEPTH),
  );
  if (deep >= 0)
    throw new Error(
      `The file is not an OpenAgent conversation export: ${deep === 0 ? 'its settings nest' : `message ${deep} nests`} ` +
        `more than ${MAX_IMPORTED_DEPTH} levels deep.`,
    );
  // Every image checked (its bytes are its sha256, within the size cap) before anything is kept.
  const images = result.data.images ?? [];
  for (const image of images) {
    try {
      verifiedBytes(image);
    } catch (error) {
      throw new Error(`The file is not an OpenAgent conversation export: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const id = randomUUID();
  const conversation: StoredConversation = {
    ...result.data.conversation,
    id,
    updatedAt: now,
    title: `${result.data.conversation.title} (imported)`,
  };
  await store.saveConversation(conversation);
  for (const message of result.data.messages) {
    await store.putMessage({ ...message, id: `${id}-${message.seq}`, conversationId: id } as StoredMessage);
  }
  for (const image of images) await store.images?.put(image, id);
  return conversation;
}

export function conversationToMarkdown(exported: ConversationExport): string {
  const lines = [
    `# ${exported.conversation.title}`,
    '',
    `_Exported from OpenAgent — ${new Date(exported.conversation.updatedAt).toISOString()}_`,
    '',
  ];
  const images = new Map((exported.images ?? []).map((image) => [image.sha256, image]));
  const pictures = (message: { content: unknown }) =>
    referencesIn(message).map((reference) => imageMarkdown(reference, images.get(reference.sha256)));
  for (const message of exported.messages) {
    if (message.role === 'event') {
      const event = message.content as { type?: unknown; toolName?: unknown } | null;
      if (event?.type === 'tool_call' && typeof event.toolName === 'string') lines.push(`_Used ${event.toolName}_`, '');
      if (event?.type === 'tool_result') for (const picture of pictures(message)) lines.push(picture, '');
      continue;
    }
    lines.push(`## ${message.role === 'user' ? 'You' : 'OpenAgent'}`, '', textOf(message.content), '');
    for (const picture of pictures(message)) lines.push(picture, '');
  }
  return lines.join('\n');
}

/** An image embedded as a data: URL (one self-contained file), or a note where it is gone. */
function imageMarkdown(reference: ImageReference, image: ImagePart | undefined): string {
  const name = markdownText(typeof reference.name === 'string' ? reference.name : 'image');
  if (!image) return `_[image ${name}, ${side(reference.width)}×${side(reference.height)}: no longer stored]_`;
  return `![${name}](data:${image.mediaType};base64,${image.data})`;
}

/**
 * A name as Markdown text that stays text: control, line-breaking and bidi characters dropped
 * (a name cannot start a new block or reorder what follows), and every character that could open
 * a link, an image, emphasis, code, a table cell or HTML backslash-escaped (CommonMark's escapes).
 * A name never starts a line here, so what only matters there (#, -, 1.) stays as it is.
 */
function markdownText(name: string): string {
  return (
    name
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, ' ')
      .slice(0, 200)
      .replace(/[\\[\]()<>*_`!|~&]/g, (character) => `\\${character}`)
  );
}

/** A side as the note shows it: a number, or "?" for what an imported file put there instead. */
function side(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : '?';
}

/** The readable text of a stored message (`{ text }` as the recorder writes it, a string, or a model message). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  const text = (content as { text?: unknown } | null)?.text;
  if (typeof text === 'string') return text;
  const parts = (content as { content?: unknown } | null)?.content;
  if (!Array.isArray(parts)) return '';
  return parts
    .map((part: { type?: string; text?: string; name?: string; toolName?: string; output?: string }) => {
      if (part.type === 'text') return part.text ?? '';
      if (part.type === 'tool_call') return `_Used ${part.name}_`;
      if (part.type === 'tool_result') return `_${part.toolName} returned ${part.output?.length ?? 0} characters_`;
      return '';
    })
    .filter(Boolean)
    .join('\n\n');
}

export function auditToJsonl(records: readonly AuditRecord[]): string {
  return records.map((record) => JSON.stringify(record)).join('\n') + (records.length > 0 ? '\n' : '');
}

export function auditToCsv(records: readonly AuditRecord[]): string {
  const rows = [['id', 'conversation_id', 'time', 'kind', 'data']];
  for (const record of records)
    rows.push([
      record.id,
      record.conversationId,
      new Date(record.time).toISOString(),
      record.kind,
      JSON.stringify(record.data),
    ]);
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** Quotes a cell, and defuses values a spreadsheet would run as a formula. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Whether `value` nests arrays and objects deeper than `limit`, found without recursion. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}
