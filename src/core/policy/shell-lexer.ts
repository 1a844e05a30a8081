/**
 * The structural half of the shell-command analyser (SPEC 4.3): one linear pass over a command
 * line that finds words, control operators and redirections the way bash would, including the
 * cases shell-quote alone gets wrong for a security check — a newline or `\r` separates commands,
 * `#` starts a comment only at the start of a word, `2>` is a redirection of fd 2, an unclosed
 * quote is an error. Command substitutions (`$(...)`, backticks) and process substitutions
 * (`<(...)`, `>(...)`) are lexed recursively and left in their word as a placeholder. Words keep
 * their quoting (`raw`); shell-command.ts dequotes them with shell-quote. Anything this lexer does
 * not confidently understand (here-documents, arithmetic, `${...}` with nested expansions) is a
 * ShellParseError with a reason a person can read.
 */

/** Thrown for anything the analyser will not vouch for; the message is shown to the user. */
export class ShellParseError extends Error {
  /** The program that would run is decided only at run time (a variable, `$(…)`, `eval`…). */
  readonly runtimeProgram: boolean;

  constructor(message: string, options: { runtimeProgram?: boolean } = {}) {
    super(message);
    this.runtimeProgram = options.runtimeProgram ?? false;
  }
}

export interface WordToken {
  kind: 'word';
  /** The word as written (quotes kept), substitutions replaced by placeholders. */
  raw: string;
  /** Contains a command or process substitution. */
  substitution: boolean;
  /** Contains a parameter expansion (`$NAME`, `${NAME}`) outside single quotes. */
  expansion: boolean;
  /** Contains an unquoted `{` (brace expansion or a group). */
  brace: boolean;
  /** Starts with an unquoted `NAME=` (a variable assignment when it precedes the command). */
  assignment: boolean;
}

export interface OperatorToken {
  kind: 'op';
  /** `;`, `&&`, `|`, `\n`, `>`, `2>>` …: redirections carry their file-descriptor prefix. */
  op: string;
}

export type ShellToken = WordToken | OperatorToken;

/** One lexed command list, with the lists of the substitutions found in it. */
export interface Lexed {
  tokens: ShellToken[];
  nested: Lexed[];
}

/** Shared by a lexer and its nested lexers: the source text behind each placeholder. */
export interface LexContext {
  substitutionTexts: string[];
}

export const PLACEHOLDER_OPEN = '\uE000';
export const PLACEHOLDER_CLOSE = '\uE001';
const MAX_DEPTH = 8;

/** Longest first, so `&&` wins over `&` and `<<<` over `<<`. */
const OPERATORS = [
  ';;&',
  '&>>',
  '<<<',
  '<<-',
  '&&',
  '&>',
  '||',
  '|&',
  ';;',
  ';&',
  '<<',
  '<&',
  '<>',
  '>>',
  '>|',
  '>&',
  '&',
  '|',
  ';',
  '<',
  '>',
  '(',
  ')',
];

/** Lexes a whole command line (or the inside of backticks). */
export function lexCommand(source: string, context: LexContext, depth = 0): Lexed {
  if (/[\0\uE000\uE001]/.test(source)) throw new ShellParseError('the command contains NUL or reserved characters');
  const lexer = new Lexer(source, 0, depth, context);
  return lexer.lex(false);
}

interface WordBuilder {
  raw: string;
  substitution: boolean;
  expansion: boolean;
  brace: boolean;
  /** Only unquoted, unescaped characters so far (needed to read `2>` as a redirection of fd 2). */
  plain: boolean;
}

class Lexer {
  private word: WordBuilder | undefined;
  private readonly tokens: ShellToken[] = [];
  private readonly nested: Lexed[] = [];

  constructor(
    private readonly s: string,
    public i: number,
    private readonly depth: number,
    private readonly context: LexContext,
  ) {
    if (depth > MAX_DEPTH) throw new ShellParseError('substitutions are nested too deeply');
  }

  /** Reads to the end, or (closing) to the unquoted `)` that ends a `$(` or `<(`. */
  lex(closing: boolean): Lexed {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charAt(this.i);
      if (c === ' ' || c === '\t') {
        this.endWord();
        this.i += 1;
      } else if (c === '\n' || c === '\r') {
        this.endWord();
        this.tokens.push({ kind: 'op', op: c });
        this.i += 1;
      } else if (c === '#' && this.word === undefined) {
        while (this.i < s.length && s.charAt(this.i) !== '\n' && s.charAt(this.i) !== '\r') this.i += 1;
      } else if (c === ')' && closing) {
        this.endWord();
        this.i += 1;
        return { tokens: this.tokens, nested: this.nested };
      } else if ((c === '<' || c === '>') && s.charAt(this.i + 1) === '(') {
        this.substitution(this.i, this.i + 2);
      } else if ('<>;&|()'.includes(c)) {
        this.operator();
      } else {
        this.wordPart(c);
      }
    }
    if (closing) throw new ShellParseError('a `$(` or `<(` is never closed');
    this.endWord();
    return { tokens: this.tokens, nested: this.nested };
  }

  private operator(): void {
    const op = OPERATORS.find((candidate) => this.s.startsWith(candidate, this.i)) ?? this.s.charAt(this.i);
    this.i += op.length;
    const word = this.word;
    if ((op.startsWith('<') || op.startsWith('>')) && word?.plain && /^\d+$/.test(word.raw)) {
      this.word = undefined;
      this.tokens.push({ kind: 'op', op: word.raw + op });
      return;
    }
    this.endWord();
    this.tokens.push({ kind: 'op', op });
  }

  private wordPart(c: string): void {
    const s = this.s;
    const word = this.startWord();
    if (c === "'") {
      const end = s.indexOf("'", this.i + 1);
      if (end < 0) throw new ShellParseError('a single quote is never closed');
      word.raw += s.slice(this.i, end + 1);
      word.plain = false;
      this.i = end + 1;
    } else if (c === '"') {
      this.doubleQuoted(word);
    } else if (c === '$') {
      this.dollar(word, false);
    } else if (c === '`') {
      this.backticks(word, false);
    } else if (c === '\\') {
      const next = s.charAt(this.i + 1);
      if (next === '') throw new ShellParseError('the command ends with a backslash');
      if (next === '\r') throw new ShellParseError('an escaped carriage return is not analysed');
      // A backslash-newline joins lines; anything else escaped is kept for shell-quote to read.
      if (next !== '\n') word.raw += c + next;
      word.plain = false;
      this.i += 2;
    } else {
      // `#` inside a word is literal in bash, but shell-quote would read a comment: escape it.
      word.raw += c === '#' ? '\\#' : c;
      if (c === '{') word.brace = true;
      this.i += 1;
    }
  }

  private doubleQuoted(word: WordBuilder): void {
    const s = this.s;
    word.plain = false;
    word.raw += '"';
    this.i += 1;
    for (;;) {
      if (this.i >= s.length) throw new ShellParseError('a double quote is never closed');
      const c = s.charAt(this.i);
      if (c === '"') {
        word.raw += c;
        this.i += 1;
        return;
      }
      if (c === '\\') {
        const next = s.charAt(this.i + 1);
        if (next !== '\n') word.raw += c + next;
        this.i += 2;
      } else if (c === '$') {
        this.dollar(word, true);
      } else if (c === '`') {
        this.backticks(word, true);
      } else {
        word.raw += c;
        this.i += 1;
      }
    }
  }

  private dollar(word: WordBuilder, inDoubleQuotes: boolean): void {
    const s = this.s;
    const next = s.charAt(this.i + 1);
    if (next === '(') {
      if (s.charAt(this.i + 2) === '(') throw new ShellParseError('arithmetic expansion `$((...))` is not analysed');
      this.substitution(this.i, this.i + 2);
    } else if (next === '{') {
      const end = s.indexOf('}', this.i + 2);
      const body = end < 0 ? '' : s.slice(this.i + 2, end);
      if (end < 0 || /[$`'"\\{]/.test(body)) {
        throw new ShellParseError('a `${...}` expansion is unclosed or too complex to analyse');
      }
      word.raw += s.slice(this.i, end + 1);
      word.expansion = true;
      word.plain = false;
      this.i = end + 1;
    } else if (next === "'" && !inDoubleQuotes) {
      // ANSI-C quoting: backslash escapes anything, including a single quote.
      let j = this.i + 2;
      while (j < s.length && s.charAt(j) !== "'") j += s.charAt(j) === '\\' ? 2 : 1;
      if (j >= s.length) throw new ShellParseError("a `$'` quote is never closed");
      word.raw += s.slice(this.i, j + 1);
      word.plain = false;
      this.i = j + 1;
    } else if (next === '"' && !inDoubleQuotes) {
      this.i += 1; // `$"..."` is a translated string: read as an ordinary double-quoted one.
    } else {
      word.raw += '$';
      if (/[\w*@#?$!-]/.test(next)) word.expansion = true;
      word.plain = false;
      this.i += 1;
    }
  }

  private backticks(word: WordBuilder, inDoubleQuotes: boolean): void {
    const s = this.s;
    let j = this.i + 1;
    while (j < s.length && s.charAt(j) !== '`') j += s.charAt(j) === '\\' ? 2 : 1;
    if (j >= s.length) throw new ShellParseError('a backtick is never closed');
    const escapable = inDoubleQuotes ? /\\([$`\\"])/g : /\\([$`\\])/g;
    const inner = s.slice(this.i + 1, j).replace(escapable, '$1');
    this.nested.push(lexCommand(inner, this.context, this.depth + 1));
    this.addPlaceholder(word, s.slice(this.i, j + 1));
    this.i = j + 1;
  }

  /** A `$(`, `<(` or `>(` starting at `start` whose inside starts at `bodyStart`. */
  private substitution(start: number, bodyStart: number): void {
    const word = this.startWord();
    const inner = new Lexer(this.s, bodyStart, this.depth + 1, this.context);
    this.nested.push(inner.lex(true));
    this.addPlaceholder(word, this.s.slice(start, inner.i));
    this.i = inner.i;
  }

  private addPlaceholder(word: WordBuilder, text: string): void {
    const index = this.context.substitutionTexts.push(text) - 1;
    word.raw += `${PLACEHOLDER_OPEN}${index}${PLACEHOLDER_CLOSE}`;
    word.substitution = true;
    word.plain = false;
  }

  private startWord(): WordBuilder {
    this.word ??= { raw: '', substitution: false, expansion: false, brace: false, plain: true };
    return this.word;
  }

  private endWord(): void {
    const word = this.word;
    if (word === undefined) return;
    this.word = undefined;
    this.tokens.push({
      kind: 'word',
      raw: word.raw,
      substitution: word.substitution,
      expansion: word.expansion,
      brace: word.brace,
      assignment: /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.raw),
    });
  }
}
