/**
 * Context mentions in a prompt (SPEC 1.1): `@file:path`, `@selection`, `@problems`,
 * `@terminal`, `@git`. The host resolves each to text (a file's content, the editor selection,
 * the diagnostics, the last terminal output, the uncommitted diff); the model receives them
 * after the prompt as labelled sections, each capped, while the chat shows only the labels.
 */

export type MentionKind = 'file' | 'selection' | 'problems' | 'terminal' | 'git';

export interface Mention {
  kind: MentionKind;
  /** The path for @file. */
  argument?: string;
  /** As typed, e.g. "@file:src/app.ts". */
  label: string;
}

/** What a host knows how to fetch; each returns text, or throws with a reason for the user. */
export type MentionResolver = (mention: Mention) => Promise<string>;

/** Each mention's text is cut beyond this (the end is dropped; the model can read_file for more). */
export const MAX_MENTION_CHARS = 60_000;
const MAX_MENTIONS = 20;

const PATTERN = /(^|[\s(])@(file:(?:"[^"\n]+"|[^\s"]+)|selection\b|problems\b|terminal\b|git\b)/g;

export function parseMentions(prompt: string): Mention[] {
  const mentions: Mention[] = [];
  const seen = new Set<string>();
  for (const match of prompt.matchAll(PATTERN)) {
    const token = match[2]!;
    const mention: Mention = token.startsWith('file:')
      ? {
          kind: 'file',
          argument: token
            .slice(5)
            .replace(/^"|"$/g, '')
            .replace(/[.,;:!?)]+$/, ''),
          label: '',
        }
      : { kind: token as MentionKind, label: '' };
    mention.label = mention.kind === 'file' ? `@file:${mention.argument}` : `@${mention.kind}`;
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
}

/** Resolves every mention; one that fails becomes a note, so the prompt still goes out. */
export async function resolveMentions(prompt: string, resolve: MentionResolver): Promise<ResolvedContext> {
  const mentions = parseMentions(prompt);
  const sections = await Promise.all(
    mentions.map(async (mention) => {
      try {
        const text = await resolve(mention);
        const cut =
          text.length > MAX_MENTION_CHARS
            ? `${text.slice(0, MAX_MENTION_CHARS)}\n[… cut: ${text.length - MAX_MENTION_CHARS} more characters]`
            : text;
        return `<context mention="${mention.label}">\n${cut}\n</context>`;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return `<context mention="${mention.label}">\n(could not be attached: ${reason})\n</context>`;
      }
    }),
  );
  return { labels: mentions.map((mention) => mention.label), text: sections.join('\n\n') };
}
