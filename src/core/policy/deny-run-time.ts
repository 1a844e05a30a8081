/**
 * A deny or approver rule sees a command however it is spelled, so what cannot be shown not to
 * match counts as matching (SPEC 4.3): words decided only at run time (`git $(echo push)`, `git
 * "$X"`, `git pu$X`, `git p*`) and git subcommands git resolves to something else (an alias, an
 * external `git-foo`). denied-programs.ts asks here once the words as written matched no rule.
 *
 * Run-time words: the rule may match when the words before the first run-time word, and that
 * word's literal start, can be continued into a command the rule matches — as text, word by
 * word, and by meaning (deny-grammar.ts: options anywhere, so `git -C . "$SUB"` may be a push
 * while `git status $(cat f)` and `git checkout "$BRANCH"` are not). Linear in the words.
 */
import { mayDenyByMeaning, type RunTimeWord } from './deny-grammar';
import { gitIndirection } from './git-commands';
import { matchesPattern, mayMatchStartingWith, mayMatchWordsStartingWith } from './rule-patterns';
import type { CommandSegment } from './shell-command';

/** Why a rule may match a segment that cannot be shown not to: the rule, in words. */
export type RunTimeFinding = { unknown: string; rule: string } | undefined;

/** Where a word's run-time part starts: a variable, substitution, brace or glob character. */
const OPEN_PART = /[$`{*?[]/;

/** The segment's words with what of them is decided at run time (undefined when none is). */
export function runTimeWords(segment: CommandSegment): RunTimeWord[] | undefined {
  let any = false;
  const words = segment.argv.map((text, at): RunTimeWord => {
    const facts = segment.facts[at];
    if (!facts?.computed && !facts?.glob) return { text, prefix: text };
    any = true;
    const cut = text.search(OPEN_PART);
    return { text, open: facts.splits ? 'many' : 'one', prefix: cut < 0 ? text : text.slice(0, cut) };
  });
  return any ? words : undefined;
}

/** The first rule a run-time word may make the segment match (see the file comment). */
export function runTimeFinding(
  patterns: readonly string[],
  segment: CommandSegment,
  nameOf: (word: string) => string,
): RunTimeFinding {
  const words = runTimeWords(segment);
  if (words === undefined) return undefined;
  const named = words.map((word, at) =>
    segment.programWords.includes(at) ? { ...word, text: nameOf(word.text), prefix: nameOf(word.text) } : word,
  );
  for (const start of [0, ...segment.programWords]) {
    for (const list of [words, named]) {
      const from = list.slice(start);
      const openAt = from.findIndex((word) => word.open !== undefined);
      if (openAt < 0) continue;
      const literal = from.slice(0, openAt).map((word) => word.text);
      const open = from[openAt]!;
      const text = [...literal, open.prefix].join(' ');
      const rule = patterns.find(
        (pattern) => mayMatchStartingWith(pattern, text) || mayMatchWordsStartingWith(pattern, literal, open.prefix),
      );
      if (rule !== undefined) return found(rule, open.text);
    }
  }
  for (const index of segment.programWords) {
    const from = named.slice(index);
    const open = from.find((word) => word.open !== undefined);
    if (open === undefined) continue;
    const rule = patterns.find((pattern) => mayDenyByMeaning(pattern, from));
    if (rule !== undefined) return found(rule, open.text);
  }
  return undefined;
}

function found(rule: string, word: string): RunTimeFinding {
  return { unknown: `the word \`${word}\` is decided only at run time and may make it match "${rule}"`, rule };
}

/**
 * For rules naming a git subcommand (`git push*`, not `git*`, which any git command matches):
 * a git command whose subcommand is not git's own, or that defines aliases or moves git's exec
 * path on its command line (git-commands.ts), may run what the rule names.
 */
export function gitFinding(
  patterns: readonly string[],
  segment: CommandSegment,
  nameOf: (word: string) => string,
): RunTimeFinding {
  const index = segment.programIndex;
  if (index < 0 || nameOf(segment.argv[index] ?? '') !== 'git') return undefined;
  const rule = patterns.find((pattern) => namesGitSubcommand(pattern));
  if (rule === undefined) return undefined;
  const words = runTimeWords(segment);
  const why = gitIndirection({
    args: segment.argv.slice(index + 1),
    assignments: segment.argv.slice(0, index).filter((word) => /^[A-Za-z_]\w*=/.test(word)),
    open: words?.slice(index + 1).map((word) => word.open !== undefined),
  });
  return why === undefined ? undefined : { unknown: `${why}, and may match "${rule}"`, rule };
}

function namesGitSubcommand(pattern: string): boolean {
  const parts = pattern.trim().split(/\s+/).filter(Boolean);
  const head = parts[0] ?? '';
  if (parts.length < 2 || head.startsWith('*')) return false;
  return matchesPattern(head.toLowerCase(), 'git');
}
