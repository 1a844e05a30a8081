/**
 * What a web page (or the server that sent it) says, made safe to put in front of the model
 * and the chat (issue 36): the page cannot hide text (controls, ANSI escapes, bidirectional
 * overrides, zero-width and Unicode tag characters, which a model reads and a person does not
 * see), cannot close the untrusted marking from inside however it spells the closing tag, and a
 * server's header reaches a message outside the marking only when it is a plain token.
 */

/**
 * Removed from page text: C0 and C1 controls but tab and newline, DEL, bidi marks, overrides and
 * isolates, zero-width space and word joiners, BOMs, interlinear annotation marks, and the tag
 * characters (U+E0000–E007F: invisible ASCII look-alikes used to smuggle instructions to a model).
 * Zero-width (non-)joiners stay: scripts and emoji need them.
 */
const HIDING =
  // eslint-disable-next-line no-control-regex
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;

/** Each letter of `word` as a class with its fullwidth form: `web` matches `ｗｅｂ` too. */
const wide = (word: string) =>
  [...word].map((letter) => `[${letter}${String.fromCodePoint(letter.codePointAt(0)! + 0xfee0)}]`).join('');

/**
 * The marker's tag as a page could write it to be read as one: `<`, `＜`, `&lt;`; a slash or
 * none; spaces, Markdown's backslash escapes; `_`, `＿`, `-` or a space between the words; any case.
 */
const MARKER_TAG = new RegExp(
  `(?:[<\uff1c\ufe64]|&lt;|&#0*60;|&#x0*3c;)[\\s\\\\]*[/\uff0f]?[\\s\\\\]*${wide('web')}[\\s\\\\]*[_\uff3f-]?[\\s\\\\]*${wide('content')}`,
  'giu',
);

/** Page text with hiding characters removed, line ends as `\n`, and every look-alike of the marker's tag broken. */
export function untrustedText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(HIDING, '')
    .replace(MARKER_TAG, (tag) => tag.replace(/^(&[^;]*;|.)/u, '$1\u200b'));
}

/** A header value (a media type, an encoding) if it is a plain token short enough to quote, else undefined. */
export function plainToken(value: string, maxChars = 80): string | undefined {
  return value.length <= maxChars && /^[a-z0-9][a-z0-9!#$&^_.+/-]*$/i.test(value) ? value : undefined;
}
