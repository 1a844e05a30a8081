/**
 * Shell-command analysis for policy rules and "Always This Session" (SPEC 4.1, 4.3): splits a
 * command line into its simple commands (segments) at `;`, `&&`, `||`, `|`, `&`, newlines and
 * `\r`; reports redirections with their targets; reads command substitutions, process
 * substitutions and `bash -c '...'` strings recursively so the commands inside are segments too;
 * names the real program of each segment (`env X=1 cmd` runs `cmd`). Variables are never
 * expanded (`$HOME` stays literal). Whatever cannot be analysed with confidence — unclosed
 * quotes, here-documents, subshells, `{ }` groups, control structures, `eval`, a program named
 * by a variable — is `{ ok: false, reason }`: the caller then asks the user. Linear time.
 */
import { parse } from 'shell-quote';
import {
  lexCommand,
  PLACEHOLDER_CLOSE,
  PLACEHOLDER_OPEN,
  ShellParseError,
  type LexContext,
  type Lexed,
  type WordToken,
} from './shell-lexer';
import { resolveProgram } from './shell-wrappers';
import { hasHidingCharacters } from '../text/visible-text';

export interface CommandSegment {
  /** Every word of the simple command as written, dequoted (wrappers and assignments included). */
  argv: string[];
  /** The program that really runs, e.g. `cmd` for `env X=1 cmd`; '' when it only assigns. */
  program: string;
  /** The arguments given to that program. */
  args: string[];
  /** What the shell does to each word of argv before it runs (same order as argv). */
  facts: WordFacts[];
  /** The index in argv of the program that runs; -1 when none (assignments only, bare xargs). */
  programIndex: number;
  /** The indices in argv of every word naming a program: the wrappers (`sudo`, `env`…), then the program. */
  programWords: number[];
  /** A shell reading the commands it runs from its input (`… | sh`, `sh -s`): what runs is unknown. */
  readsCommands?: boolean;
}

/** How a word becomes its final text when the command runs. */
export interface WordFacts {
  /** A variable, command substitution or brace expansion: its text is decided at run time. */
  computed: boolean;
  /** An unquoted `*`, `?` or `[`: the shell expands it to whatever files match. */
  glob: boolean;
  /** Starts with an unquoted `~`: the shell puts a home folder there. */
  tilde: boolean;
  /**
   * An unquoted variable, substitution, brace or glob: the word may become several words, or
   * none (`git $X` may be `git push origin`). Absent when it stays one word (`"$X"`).
   */
  splits?: true;
}

export interface Redirection {
  /** `>`, `>>`, `<`, `2>`, `&>`, `2>&` … */
  op: string;
  target: string;
  facts: WordFacts;
}

export interface CommandAnalysis {
  ok: true;
  segments: CommandSegment[];
  /** The operators between segments in order (`\n` and `\r` for line breaks). */
  operators: string[];
  redirections: Redirection[];
  /** A command or process substitution (or a `bash -c` string) was read. */
  substitutions: boolean;
  /**
   * It holds characters that can make it show as something else (a carriage return, an escape
   * sequence, a bidi override, an invisible character): its segments are still checked against
   * deny rules, but nothing may approve it without asking.
   */
  hidden: boolean;
}

export type CommandAnalysisResult =
  | CommandAnalysis
  | {
      ok: false;
      reason: string;
      /** What cannot be read includes a program named only at run time (`$(…)`, `$VAR`, `eval`…). */
      runtimeProgram: boolean;
    };

const SEPARATORS = new Set([';', '&', '&&', '||', '|', '|&', '\n', '\r']);
const CONTINUED = new Set(['&&', '||', '|', '|&']);
const KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'select',
  'function',
  'coproc',
  '{',
  '}',
  '[[',
  ']]',
]);
const MAX_DEPTH = 8;

/** Analyses one command line; never throws. */
export function analyseCommand(command: string): CommandAnalysisResult {
  try {
    const analysis = analyse(command, 0);
    return { ...analysis, hidden: hasHidingCharacters(command.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '')) };
  } catch (error) {
    if (error instanceof ShellParseError)
      return {
        ok: false,
        reason: `Cannot analyse this command: ${error.message}.`,
        runtimeProgram: error.runtimeProgram,
      };
    throw error;
  }
}

function analyse(command: string, depth: number): CommandAnalysis {
  if (depth > MAX_DEPTH) throw new ShellParseError('`sh -c` strings are nested too deeply');
  const context: LexContext = { substitutionTexts: [] };
  const lexed = lexCommand(command.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, ''), context, depth);
  return build(lexed, context, depth);
}

function build(lexed: Lexed, context: LexContext, depth: number): CommandAnalysis {
  const result: CommandAnalysis = {
    ok: true,
    segments: [],
    operators: [],
    redirections: [],
    substitutions: lexed.nested.length > 0,
    hidden: false,
  };
  let words: WordToken[] = [];
  let redirected = false;
  let lastOperator: string | undefined;
  const tokens = lexed.tokens;
  for (let t = 0; t < tokens.length; t += 1) {
    const token = tokens[t];
    if (token === undefined) continue;
    if (token.kind === 'word') {
      words.push(token);
      continue;
    }
    const op = token.op;
    if (SEPARATORS.has(op)) {
      if (words.length === 0 && !redirected) {
        // Blank lines, and a line break after `&&` or `|`, are allowed; other empty commands are not.
        if (op === '\n' || op === '\r') continue;
        throw new ShellParseError(`\`${printable(op)}\` has no command before it`);
      }
      finishSegment(words, context, depth, result);
      words = [];
      redirected = false;
      result.operators.push(op);
      lastOperator = op;
      continue;
    }
    const redirection = /^\d*(<<<|<&|<>|<|>>|>\||>&|>|&>>|&>)$/.test(op);
    if (!redirection) {
      if (op.endsWith('<<') || op.endsWith('<<-')) throw new ShellParseError('here-documents are not analysed');
      if (op === '(' || op === ')') throw new ShellParseError('subshells and parentheses are not analysed');
      throw new ShellParseError(`the operator \`${op}\` (case syntax) is not analysed`);
    }
    const target = tokens[t + 1];
    if (target?.kind !== 'word') throw new ShellParseError(`the redirection \`${op}\` has no target`);
    result.redirections.push({ op, target: dequote(target, context), facts: factsOf(target) });
    redirected = true;
    t += 1;
  }
  if (words.length > 0 || redirected) finishSegment(words, context, depth, result);
  else if (lastOperator !== undefined && CONTINUED.has(lastOperator)) {
    throw new ShellParseError(`the command ends with \`${lastOperator}\``);
  }
  for (const nested of lexed.nested) merge(result, build(nested, context, depth + 1));
  return result;
}

function finishSegment(words: WordToken[], context: LexContext, depth: number, result: CommandAnalysis): void {
  if (words.length === 0) throw new ShellParseError('a redirection without a command is not analysed');
  const argv = words.map((word) => dequote(word, context));
  const first = words.findIndex((word) => !word.assignment);
  if (first >= 0 && KEYWORDS.has(argv[first] ?? '')) {
    throw new ShellParseError(`shell syntax \`${argv[first]}\` (groups, loops, conditionals) is not analysed`);
  }
  const resolved = resolveProgram(
    words.map((word, index) => ({ text: argv[index] ?? '', assignment: word.assignment })),
  );
  const programWord = words[resolved.index];
  if (programWord !== undefined) checkProgramWord(programWord, resolved.program);
  result.segments.push({
    argv,
    program: resolved.program,
    args: resolved.index < 0 ? [] : argv.slice(resolved.index + 1),
    facts: words.map(factsOf),
    programIndex: resolved.index,
    programWords: resolved.chain,
    ...(resolved.readsCommands ? { readsCommands: true } : {}),
  });
  if (resolved.shellCommand !== undefined) {
    const stringWord = words[resolved.shellCommandIndex ?? -1];
    if (stringWord?.substitution || stringWord?.expansion) {
      throw new ShellParseError(`the \`${resolved.program} -c\` string is built at run time`, { runtimeProgram: true });
    }
    result.substitutions = true;
    try {
      merge(result, analyse(resolved.shellCommand, depth + 1));
    } catch (error) {
      if (error instanceof ShellParseError)
        throw new ShellParseError(`in \`${resolved.program} -c\`, ${error.message}`, {
          runtimeProgram: error.runtimeProgram,
        });
      throw error;
    }
  }
}

/** The raw text outside quotes and escapes: what the shell itself interprets. */
function unquoted(raw: string): string {
  return raw.replace(/'[^']*'|"(?:[^"\\]|\\.)*"|\\./g, '');
}

function factsOf(word: WordToken): WordFacts {
  const bare = unquoted(word.raw);
  const glob = /[*?[]/.test(bare);
  const computed = word.expansion || word.substitution || word.brace;
  const splits =
    glob || (computed && (bare.includes('$') || bare.includes('`') || bare.includes(PLACEHOLDER_OPEN) || word.brace));
  return { computed, glob, tilde: word.raw.startsWith('~'), ...(splits ? { splits: true as const } : {}) };
}

/** The program must be a name known before the command runs. */
function checkProgramWord(word: WordToken, program: string): void {
  const runtime = { runtimeProgram: true };
  if (word.substitution) throw new ShellParseError('the program name comes from a command substitution', runtime);
  if (word.expansion) throw new ShellParseError(`the program name \`${program}\` comes from a variable`, runtime);
  if (word.brace) throw new ShellParseError(`the program name \`${program}\` uses brace expansion`, runtime);
  if (word.raw !== '[' && /[*?[]/.test(unquoted(word.raw))) {
    throw new ShellParseError(`the program name \`${program}\` is a glob pattern`, runtime);
  }
  if (program === '') throw new ShellParseError('the program name is empty');
}

function merge(into: CommandAnalysis, from: CommandAnalysis): void {
  for (const segment of from.segments) into.segments.push(segment);
  for (const op of from.operators) into.operators.push(op);
  for (const redirection of from.redirections) into.redirections.push(redirection);
  into.substitutions ||= from.substitutions;
}

const PLAIN_WORD = /^[\w./:=@%+,-]+$/;
const PLACEHOLDER = new RegExp(`${PLACEHOLDER_OPEN}(\\d+)${PLACEHOLDER_CLOSE}`, 'g');

/** A word's text after quote removal, with variables left as written and substitutions restored. */
function dequote(word: WordToken, context: LexContext): string {
  const restore = (text: string) =>
    word.substitution
      ? text.replace(PLACEHOLDER, (_m, index: string) => context.substitutionTexts[Number(index)] ?? '')
      : text;
  if (PLAIN_WORD.test(word.raw)) return word.raw;
  let entries: ReturnType<typeof parse>;
  try {
    entries = parse(word.raw, literalVariable);
  } catch (error) {
    throw new ShellParseError(`the word \`${restore(word.raw)}\` cannot be read (${(error as Error).message})`);
  }
  if (entries.length === 0 && /^(''|"")+$/.test(word.raw)) return '';
  const entry = entries[0];
  if (entries.length !== 1 || entry === undefined) {
    throw new ShellParseError(`the word \`${restore(word.raw)}\` cannot be read`);
  }
  if (typeof entry === 'string') return restore(entry);
  if ('op' in entry && entry.op === 'glob') return restore(entry.pattern);
  // A comment or operator inside one word means shell-quote read it differently from the lexer.
  throw new ShellParseError(`the word \`${restore(word.raw)}\` cannot be read`);
}

/** Keeps `$NAME` literal: shell-quote calls this instead of reading the environment. */
function literalVariable(name: string): string {
  if (name === '') return '$';
  return /^([A-Za-z_]\w*|[0-9*@#?$!-])$/.test(name) ? `$${name}` : `\${${name}}`;
}

function printable(op: string): string {
  return op === '\n' ? '\\n' : op === '\r' ? '\\r' : op;
}
