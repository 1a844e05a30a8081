/**
 * Context mentions in a prompt (SPEC 1.1): `@file:path`, `@image:path` (issue 36), `@selection`,
 * `@problems`, `@terminal`, `@git`. The host resolves each to text (a file's content, the editor selection,
 * the diagnostics, the last terminal output, the uncommitted diff); the model receives them
 * after the prompt as labelled sections, each capped, while the chat shows only the labels.
 */

import type { ImagePart } from '../llm/llm-client';
import { IMAGE_LIMITS } from '../images/image-limits';

export type MentionKind = 'file' | 'image' | 'selection' | 'problems' | 'terminal' | 'git';

export interface Mention {
  kind: MentionKind;
  /** The path for @file and @image. */
  argument?: string;
  /** As typed, e.g. "@file:src/app.ts". */
  label: string;
}

/**
 * What a host knows how to fetch; each returns text (an @image: the prepared image), or throws
 * with a reason for the user. Undefined: this surface has no such mention, the words stay as typed.
 */
export type MentionResolver = (mention: Mention) => Promise<string | ImagePart | undefined>;

/** Each mention's text is cut beyond this (the end is dropped; the model can read_file for more). */
export const MAX_MENTION_CHARS = 60_000;
const MAX_MENTIONS = 20;

const PATTERN = /(^|[\s(])@((?:file|image):(?:"[^"\n]+"|[^\s"]+)|selection\b|problems\b|terminal\b|git\b)/g;

export function parseMentions(prompt: string): Mention[] {
  const mentions: Mention[] = [];
  const seen = new Set<string>();
  for (const match of prompt.matchAll(PATTERN)) {
    const token = match[2]!;
    const kind = token.startsWith('file:') ? 'file' : token.startsWith('image:') ? 'image' : undefined;
    const mention: Mention = kind
      ? {
          kind,
          argument: token
            .slice(kind.length + 1)
            .replace(/^"|"$/g, '')
            .replace(/[.,;:!?)]+$/, ''),
          label: '',
        }
      : { kind: token as MentionKind, label: '' };
    mention.label = mention.argument !== undefined ? `@${mention.kind}:${mention.argument}` : `@${mention.kind}`;
    if (seen.has(mention.label)) continue;
    seen.add(mention.label);
    mentions.push(mention);
    if (mentions.length === MAX_MENTIONS) break;
  }
  return mentions;
}

export interface ResolvedContext {
  /** Labels of what was attached, for the chat. */
  labels: string[];
  /** The sections the model reads after the prompt; empty when nothing was mentioned. */
  text: string;
  /** Images attached with @image:path, sent after the prompt as images. */
  images?: ImagePart[];
}

/** Resolves every mention; one that fails becomes a note, so the prompt still goes out. */
export async function resolveMentions(prompt: string, resolve: MentionResolver): Promise<ResolvedContext> {
  const mentions = parseMentions(prompt);
  const results = await Promise.all(
    mentions.map((mention) =>
      resolve(mention).then(
        (value) => ({ value }),
        (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
      ),
    ),
  );
  const labels: string[] = [];
  const sections: string[] = [];
  const images: ImagePart[] = [];
  mentions.forEach((mention, index) => {
    const result = results[index]!;
    if ('value' in result && result.value === undefined) return;
    labels.push(mention.label);
    const section = (body: string) => `<context mention="${mention.label}">\n${body}\n</context>`;
    if ('error' in result) sections.push(section(`(could not be attached: ${result.error})`));
    else if (typeof result.value === 'string') sections.push(section(cutText(result.value)));
    else if (result.value && images.length >= IMAGE_LIMITS.maxPerMessage)
      sections.push(section(`(not attached: a message carries at most ${IMAGE_LIMITS.maxPerMessage} images)`));
    else if (result.value) {
      // Its pixels follow the prompt; this line says which image it is (a model without vision reads only this).
      images.push(result.value);
      sections.push(section(`(attached as an image, ${result.value.width}×${result.value.height})`));
    }
  });
  return { labels, text: sections.join('\n\n'), ...(images.length ? { images } : {}) };
}

function cutText(text: string): string {
  return text.length > MAX_MENTION_CHARS
    ? `${text.slice(0, MAX_MENTION_CHARS)}\n[… cut: ${text.length - MAX_MENTION_CHARS} more characters]`
    : text;
}
