/**
 * What a command runs beyond the words of its segment (SPEC 4.3), for deny and approver rules
 * (denied-programs.ts): the words a program takes from its input and adds to the command it
 * runs (`… | xargs git`), shell aliases the command line defines and then uses (`alias g=git`
 * … `g push`: `sh -c` always expands them, bash once `shopt -s expand_aliases` or posix mode is
 * on, from the next line), and git's commands run by their own name (`git-push`, in git's exec
 * path). Pure helpers: the checking stays in denied-programs.ts.
 */
import type { CommandSegment, WordFacts } from './shell-command';

/** Programs that add words read from their input to the command they run. */
const INPUT_ARGUMENTS = new Set(['xargs', 'gxargs', 'parallel', 'xe']);

/** The word standing for what is read from the input: decided at run time, any number of words. */
const INPUT_WORD = '$(the words it reads from its input)';
const INPUT_FACTS: WordFacts = { computed: true, glob: false, tilde: false, splits: true };

/** Whether `name` (a program's name) runs a command with words read from its input added. */
export const addsInputWords = (name: string): boolean => INPUT_ARGUMENTS.has(name);

/**
 * The segment with the words its command takes from the input added, when a program word before
 * the one that runs is xargs or alike (`echo push | xargs git` may run `git push`); else itself.
 */
export function withInputWords(segment: CommandSegment, nameOf: (word: string) => string): CommandSegment {
  const takes = segment.programWords.some(
    (at) => at !== segment.programIndex && addsInputWords(nameOf(segment.argv[at] ?? '')),
  );
  return takes ? appendInputWords(segment) : segment;
}

export function appendInputWords(segment: CommandSegment): CommandSegment {
  return {
    ...segment,
    argv: [...segment.argv, INPUT_WORD],
    args: [...segment.args, INPUT_WORD],
    facts: [...segment.facts, INPUT_FACTS],
  };
}

/**
 * `git-push origin` (a git command run by its own name from git's exec path,
 * `/usr/lib/git-core/git-push`) as `git push origin`; undefined for any other program.
 */
export function undashedGit(segment: CommandSegment, nameOf: (word: string) => string): CommandSegment | undefined {
  const at = segment.programIndex;
  const dashed = /^git-([a-z0-9][a-z0-9-]*)$/.exec(at < 0 ? '' : nameOf(segment.argv[at] ?? ''));
  if (dashed === null) return undefined;
  const literal: WordFacts = { computed: false, glob: false, tilde: false };
  return {
    ...segment,
    argv: [...segment.argv.slice(0, at), 'git', dashed[1]!, ...segment.argv.slice(at + 1)],
    program: 'git',
    args: [dashed[1]!, ...segment.args],
    facts: [...segment.facts.slice(0, at), literal, literal, ...segment.facts.slice(at + 1)],
    programWords: segment.programWords.map((word) => (word > at ? word + 1 : word)),
  };
}

/** The aliases in force: what a name stands for (undefined when it is none). */
export interface AliasTable {
  get(name: string): string | undefined;
}
export const NO_ALIASES: AliasTable = { get: () => undefined };

/** `outer`'s aliases with `own` over them (no copy: a command line may define thousands). */
export function withAliases(outer: AliasTable, own: ReadonlyMap<string, string>): AliasTable {
  return own.size === 0 ? outer : { get: (name) => own.get(name) ?? outer.get(name) };
}

/** The aliases but `name`: the shell does not expand an alias within its own text. */
export function withoutAlias(aliases: AliasTable, name: string): AliasTable {
  return { get: (other) => (other === name ? undefined : aliases.get(other)) };
}

/** `alias a=b c=d` words: the names and the text each will stand for. */
export function aliasesIn(words: readonly string[], into: Map<string, string>): void {
  for (const word of words) {
    const equals = word.indexOf('=');
    if (equals > 0) into.set(word.slice(0, equals), word.slice(equals + 1));
  }
}

/**
 * The command line the shell reads when `name` (an alias) starts a command followed by `rest`:
 * its text, then — while that text ends with a blank, as the shell does — the next word's alias
 * too, then the other words quoted back (a word decided at run time stays one: its literal start,
 * then a variable). An alias is not expanded within itself, as in the shell.
 */
export function aliasCommandLine(
  name: string,
  rest: ReadonlyArray<{ text: string; facts?: WordFacts }>,
  aliases: AliasTable,
): string {
  let line = aliases.get(name) ?? name;
  const used = new Set([name]);
  let next = 0;
  for (; next < rest.length && /\s$/.test(line); next += 1) {
    const word = rest[next]!;
    const text = word.facts?.computed || used.has(word.text) ? undefined : aliases.get(word.text);
    if (text === undefined) break;
    used.add(word.text);
    line += text;
  }
  return [line, ...rest.slice(next).map(quotedBack)].join(' ');
}

const OPEN_PART = /[$`{*?[]/;

function quotedBack(word: { text: string; facts?: WordFacts }): string {
  const facts = word.facts ?? roughFacts(word.text);
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  if (!facts.computed && !facts.glob) return quote(word.text);
  const cut = word.text.search(OPEN_PART);
  const prefix = cut < 0 ? word.text : word.text.slice(0, cut);
  return `${prefix === '' ? '' : quote(prefix)}${facts.splits ? '$_' : '"$_"'}`;
}

/** A rough word (denied-programs.ts): one holding `$`, `` ` `` or a glob character is run-time. */
function roughFacts(text: string): WordFacts {
  const open = /[$`*?[]/.test(text);
  return { computed: open, glob: false, tilde: false, ...(open ? { splits: true as const } : {}) };
}
