/**
 * JSON for PostgreSQL's `jsonb` (and the text columns read from it). PostgreSQL cannot store
 * U+0000 in text at all, nor a lone UTF-16 surrogate: a record holding either is refused
 * whole ("unsupported Unicode escape sequence"), and a tool call's arguments or output can hold
 * both. JSON.stringify writes both as `\u` escapes (ES2019: never as raw lone surrogates), so
 * they are replaced in the JSON text — any depth, keys included — with U+FFFD, the replacement
 * character, as a decoder does with bytes it cannot read. The embedded store keeps the record
 * exactly as it was.
 */
export function jsonForPostgres(value: unknown): string {
  const text = JSON.stringify(value);
  // One pass over the escapes, as a JSON reader sees them: `\\u0000` is a backslash and the
  // text "u0000", not a NUL. No regular expression: a long run of backslashes stays linear.
  const parts: string[] = [];
  let copied = 0;
  for (let at = text.indexOf('\\'); at >= 0; at = text.indexOf('\\', at)) {
    if (text[at + 1] !== 'u') {
      at += 2;
      continue;
    }
    const code = Number.parseInt(text.slice(at + 2, at + 6), 16);
    // Paired surrogates never appear escaped: JSON.stringify writes them as the characters they are.
    if (code === 0 || (code >= 0xd800 && code <= 0xdfff)) {
      parts.push(text.slice(copied, at), '\\ufffd');
      copied = at + 6;
    }
    at += 6;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}
