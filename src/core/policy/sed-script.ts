/**
 * Reads a sed script the way GNU sed does, far enough to tell whether it only edits the text
 * stream or can also run commands and touch files: the `e` command and `s///e`, the `w`/`W`
 * commands and `s///w file` (write), `r`/`R` (read another file into the output). Addresses,
 * any `s` delimiter, `y///`, blocks, labels and the text commands `a`/`i`/`c` are read so a
 * letter inside a regex or a replacement is never mistaken for a command. Anything it does not
 * recognise counts as risky. Linear in the script's length.
 */

const SIMPLE = new Set(['p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F', '{', '}']);
/** Text to the end of the line. */
const TEXT = new Set(['a', 'i', 'c']);
/** A label (ends at whitespace or `;`) or a number. */
const WORD_ARGUMENT = new Set([':', 'b', 't', 'T', 'q', 'Q', 'l', 'L']);
const RISKY = new Set(['e', 'w', 'W', 'r', 'R']);

/** Why the script is risky (its first risky command), or undefined when it only edits text. */
export function sedScriptRisk(script: string): string | undefined {
  let at = 0;
  const text = script;
  const skipBlank = () => {
    while (at < text.length && /[\s;]/.test(text[at]!)) at++;
  };
  /**
   * Skips a delimited part ending at `delimiter`; false if unclosed. In a regex a bracket
   * expression (`[/]`) holds the delimiter literally, as GNU sed reads it.
   */
  const skipDelimited = (delimiter: string, regex = true): boolean => {
    while (at < text.length) {
      const char = text[at]!;
      if (char === '\\') at += 2;
      else if (regex && char === '[') skipBracket();
      else if (char === delimiter) {
        at++;
        return true;
      } else if (char === '\n' && delimiter !== '\n') return false;
      else at++;
    }
    return false;
  };
  /** `[…]`, where a `]` first (or after `^`) is literal and `[:alpha:]` classes nest. */
  const skipBracket = () => {
    at++;
    if (text[at] === '^') at++;
    if (text[at] === ']') at++;
    while (at < text.length && text[at] !== ']') {
      if (text[at] === '[' && /[:.=]/.test(text[at + 1] ?? '')) {
        const close = text.indexOf(`${text[at + 1]}]`, at + 2);
        at = close < 0 ? text.length : close + 2;
      } else at++;
    }
    at++;
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
    if (TEXT.has(command)) {
      while (at < text.length && text[at] !== '\n') at++;
      continue;
    }
    if (WORD_ARGUMENT.has(command)) {
      while (at < text.length && /[ \t]/.test(text[at]!)) at++;
      while (at < text.length && !/[\s;}]/.test(text[at]!)) at++;
      continue;
    }
    if (command === 's' || command === 'y') {
      const delimiter = text[at];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return 'a sed `s` command is malformed';
      at++;
      if (!skipDelimited(delimiter, command === 's') || !skipDelimited(delimiter, false))
        return 'a sed `s` command is not closed';
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

const SED_LONG = [
  'expression',
  'file',
  'line-length',
  'in-place',
  'quiet',
  'silent',
  'regexp-extended',
  'separate',
  'unbuffered',
  'null-data',
  'zero-terminated',
  'posix',
  'sandbox',
  'debug',
  'follow-symlinks',
  'binary',
  'help',
  'version',
];

/**
 * Reads a sed command line as GNU sed does — short options in clusters (`-ne'1p'`, `-nl 5`),
 * long ones by any unique prefix (`--expr=`), `--` ending the options — and says what in it
 * can run a command or touch a file other than the ones named. Under `--sandbox` sed itself
 * refuses `e`, `w` and `r`.
 */
export function sedInvocationRisk(args: readonly string[], confined: boolean): string[] {
  const reasons: string[] = [];
  const scripts: string[] = [];
  const operands: string[] = [];
  let sandboxed = false;
  let fromFile = false;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === '--') {
      operands.push(...args.slice(at + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const [given = '', value] = arg.slice(2).split(/=(.*)/s, 2);
      const matches = SED_LONG.filter((name) => name.startsWith(given));
      const name = matches.includes(given) ? given : matches.length === 1 ? matches[0] : undefined;
      if (name === undefined) return [...reasons, `sed's option \`${arg}\` is not known to the analyser`];
      const takesValue = name === 'expression' || name === 'file' || name === 'line-length';
      const taken = takesValue && value === undefined ? args[++at] : value;
      if (name === 'expression') scripts.push(taken ?? '');
      else if (name === 'file') fromFile = true;
      else if (name === 'in-place' && !confined) reasons.push(`\`${arg}\` makes sed rewrite files`);
      else if (name === 'sandbox') sandboxed = true;
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      for (let k = 1; k < arg.length; k++) {
        const letter = arg[k]!;
        const rest = arg.slice(k + 1);
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          const value = rest !== '' ? rest : args[++at];
          if (letter === 'e') scripts.push(value ?? '');
          if (letter === 'f') fromFile = true;
          break;
        }
        if (letter === 'i') {
          if (!confined) reasons.push(`\`${arg}\` makes sed rewrite files`);
          break; // the rest is the backup suffix
        }
        if (!'nErsuzb'.includes(letter))
          return [...reasons, `sed's option \`-${letter}\` is not known to the analyser`];
      }
      continue;
    }
    operands.push(arg);
  }
  if (fromFile && !sandboxed) reasons.push('the sed script comes from a file');
  if (scripts.length === 0 && !fromFile && operands[0] !== undefined) scripts.push(operands[0]);
  if (!sandboxed)
    for (const script of scripts) {
      const risk = sedScriptRisk(script);
      if (risk) reasons.push(risk);
    }
  return reasons;
}
