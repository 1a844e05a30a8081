/**
 * Branch and folder names from a session's name, which may be any text: the slug keeps only
 * `a-z`, `0-9` and single `-` inside, so no `..`, `/`, leading `-`, control character, space or
 * look-alike letter can reach git or the file system. Compatibility forms are folded first
 * (full-width `ｆｉｘ` is `fix`, `ﬁ` is `fi`) and accents dropped (`é` is `e`); any other
 * letter (a Cyrillic `а` that looks like `a`) becomes a separator, so a name can never look
 * like another branch while being a different one.
 */

/** Characters of a slug at most: a branch name and a folder name, readable in a list. */
export const MAX_SLUG_LENGTH = 48;
/** Characters of a display name kept. */
export const MAX_DISPLAY_NAME_LENGTH = 200;
const FALLBACK_SLUG = 'session';
/** Names Windows keeps for devices, whatever the extension. */
const DEVICE_NAMES = /^(con|prn|aux|nul|com\d|lpt\d)$/;

export function sessionSlug(name: string): string {
  const folded = name
    .slice(0, MAX_DISPLAY_NAME_LENGTH * 4)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  let slug = folded
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  if (!slug) slug = FALLBACK_SLUG;
  if (DEVICE_NAMES.test(slug)) slug = `${slug}-session`;
  return slug;
}

/** The name to show: control and format characters (bidi overrides too) removed, shortened. */
export function displayName(name: string): string {
  const shown = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = [...shown].slice(0, MAX_DISPLAY_NAME_LENGTH).join('');
  return cut || FALLBACK_SLUG;
}

/** `slug`, then `slug-2`, `slug-3`…: the candidates tried in turn. */
export function* slugCandidates(slug: string, attempts: number): Generator<string> {
  yield slug;
  for (let number = 2; number <= attempts; number++) yield `${slug}-${number}`;
}
