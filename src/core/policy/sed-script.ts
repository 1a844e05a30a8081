/**
 * Reads a sed script the way GNU sed does, far enough to tell whether it only edits the text
 * stream or can also run commands and touch files: the `e` command and `s///e`, the `w`/`W`
 * commands and `s///w file` (write), `r`/`R` (read another file into the output). Addresses,
 * any `s` delimiter, `y///`, blocks, labels and the text commands `a`/`i`/`c` are read so a
 * letter inside a regex or a replacement is never mistaken for a command. Anything it does not
 * recognise counts as risky. Linear in the script's length.
 */

const SIMPLE = new Set(['p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'l', '=', 'z', 'F', '{', '}']);
const TO_END_OF_LINE = new Set(['a', 'i', 'c', ':', 'b', 't', 'T', 'q', 'Q', 'L']);
const RISKY = new Set(['e', 'w', 'W', 'r', 'R']);

/** Why the script is risky (its first risky command), or undefined when it only edits text. */
export function sedScriptRisk(script: string): string | undefined {
  let at = 0;
  const text = script;
  const skipBlank = () => {
    while (at < text.length && /[\s;]/.test(text[at]!)) at++;
  };
  /** Skips a delimited part (regex or replacement) ending at `delimiter`; false if unclosed. */
  const skipDelimited = (delimiter: string): boolean => {
    while (at < text.length) {
      const char = text[at]!;
      if (char === '\\') at += 2;
      else if (char === delimiter) {
        at++;
        return true;
      } else if (char === '\n' && delimiter !== '\n') return false;
      else at++;
    }
    return false;
  };
  const skipAddress = (): boolean => {
    const char = text[at];
    if (char === undefined) return true;
    if (/[0-9$]/.test(char)) {
      while (at < text.length && /[0-9$~+]/.test(text[at]!)) at++;
      return true;
    }
    if (char === '/') {
      at++;
      if (!skipDelimited('/')) return false;
    } else if (char === '\\') {
      const delimiter = text[at + 1];
      if (delimiter === undefined) return false;
      at += 2;
      if (!skipDelimited(delimiter)) return false;
    } else return true;
    while (at < text.length && /[IM]/.test(text[at]!)) at++;
    return true;
  };
  for (;;) {
    skipBlank();
    if (at >= text.length) return undefined;
    if (text[at] === '#') {
      while (at < text.length && text[at] !== '\n') at++;
      continue;
    }
    if (!skipAddress()) return 'a sed address is not closed';
    if (text[at] === ',') {
      at++;
      if (!skipAddress()) return 'a sed address is not closed';
    }
    while (at < text.length && /[\s!]/.test(text[at]!)) at++;
    const command = text[at];
    if (command === undefined) return undefined;
    at++;
    if (RISKY.has(command)) return `the sed command \`${command}\` runs a command or touches another file`;
    if (SIMPLE.has(command)) continue;
    if (TO_END_OF_LINE.has(command)) {
      while (
        at < text.length &&
        text[at] !== '\n' &&
        !(command !== 'a' && command !== 'i' && command !== 'c' && text[at] === ';')
      )
        at++;
      continue;
    }
    if (command === 's' || command === 'y') {
      const delimiter = text[at];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return 'a sed `s` command is malformed';
      at++;
      if (!skipDelimited(delimiter) || !skipDelimited(delimiter)) return 'a sed `s` command is not closed';
      if (command === 'y') continue;
      // Flags: g p i I m M digits are text-only; e runs, w writes.
      while (at < text.length && /[gpiImM0-9ew]/.test(text[at]!)) {
        if (text[at] === 'e') return 'the sed `s///e` flag runs the result as a command';
        if (text[at] === 'w') return 'the sed `s///w` flag writes another file';
        at++;
      }
      continue;
    }
    return `the sed command \`${command}\` is not known to the analyser`;
  }
}
