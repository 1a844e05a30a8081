/**
 * Text a person must judge (an approval question, a command, a diff) with every character that
 * could hide or fake something made visible: control characters (a `\r` that returns to the
 * start of the line and overprints it, an ANSI escape that clears or recolours it), and Unicode
 * that reorders or hides text (bidirectional overrides and isolates, zero-width characters).
 * Newlines stay newlines where the text is shown on several lines.
 */

/** C0 and C1 controls but tab and newline, DEL, bidi controls, zero-width and other invisible formatting. */
const HIDING =
  // eslint-disable-next-line no-control-regex
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;

export function hasHidingCharacters(text: string): boolean {
  HIDING.lastIndex = 0;
  return HIDING.test(text);
}

/** `text` with each hiding character written as an escape (`\r`, `\x1b`, `\u202e`). */
export function visibleText(text: string, options: { keepNewlines?: boolean } = {}): string {
  const escaped = text.replace(HIDING, (char) => {
    if (char === '\r') return '\\r';
    const code = char.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return options.keepNewlines === false ? escaped.replace(/\n/g, '\\n').replace(/\t/g, '\\t') : escaped;
}
