/**
 * The two kinds of pattern policy rules are written in: `*` over a line of text (tool names,
 * deny rules) and word by word (allow rules), both matched without backtracking.
 */

/**
 * `*` matches any run of characters; everything else is literal. Matched without regular
 * expressions: a pattern like `*a*a*a*a*a*a*a*a*b` made a backtracking regex run for minutes on
 * a line of `a`s. This walk is at worst pattern length × value length.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  return wildcardWalk(
    pattern.length,
    value.length,
    (at) => pattern[at] === '*',
    (at, position) => pattern[at] === value[position],
  );
}

/**
 * The greedy wildcard walk both pattern kinds share: `isStar(at)` marks a wildcard that takes
 * any run of items; `matches(at, position)` compares one pattern item with one value item. At
 * worst pattern length × value length steps, never exponential.
 */
function wildcardWalk(
  patternLength: number,
  valueLength: number,
  isStar: (at: number) => boolean,
  matches: (at: number, position: number) => boolean,
): boolean {
  let at = 0;
  let position = 0;
  let star = -1;
  let resume = 0;
  while (position < valueLength) {
    if (at < patternLength && isStar(at)) {
      star = at++;
      resume = position;
    } else if (at < patternLength && matches(at, position)) {
      at++;
      position++;
    } else if (star >= 0) {
      at = star + 1;
      position = ++resume;
    } else return false;
  }
  while (at < patternLength && isStar(at)) at++;
  return at === patternLength;
}

type PatternWord = { rest: true } | { rest: false; glob: string };
const REST: PatternWord = { rest: true };

/**
 * An allow pattern matches the words of a command as written, with word boundaries: a `*`
 * alone, or ending the pattern right after a letter or digit (`git diff*`, `ls*`), stands for
 * any further words — never for more letters of the word (`git diff*` does not allow
 * `git difftool`). Any other `*` matches within one word (`npm run test:*`, `*.ts`). So an
 * assignment or a wrapper before the program (`GIT_DIR=x git status`, `env time -o f ls`)
 * voids an allow unless the pattern names it.
 */
export function matchesWords(pattern: string, argv: readonly string[]): boolean {
  const words = patternWords(pattern);
  return wildcardWalk(
    words.length,
    argv.length,
    (at) => words[at]!.rest,
    (at, position) => {
      const word = words[at]!;
      return !word.rest && matchesPattern(word.glob, argv[position] ?? '');
    },
  );
}

/**
 * Whether every command `pattern` allows, `wider` allows too (both read as matchesWords reads
 * them). Not a comparison of the patterns as text: under `git diff*`, the text `git difftool*`
 * matches, yet it allows `git difftool -x …`, which `git diff*` does not. Word by word instead: a
 * rest-of-the-words in `wider` may take any of `pattern`'s words, each other word of `wider` must
 * take exactly one word of `pattern` whose glob it covers (a `*` in `wider`'s glob taking any
 * run of `pattern`'s glob, its stars included), and a rest in `pattern` only a rest in `wider`.
 */
export function allowsAllOf(wider: string, pattern: string): boolean {
  const outer = patternWords(wider);
  const inner = patternWords(pattern);
  return wildcardWalk(
    outer.length,
    inner.length,
    (at) => outer[at]!.rest,
    (at, position) => {
      const word = outer[at]!;
      const covered = inner[position]!;
      return !word.rest && !covered.rest && matchesPattern(word.glob, covered.glob);
    },
  );
}

function patternWords(pattern: string): PatternWord[] {
  const parts = pattern.trim().split(/\s+/).filter(Boolean);
  const words: PatternWord[] = [];
  parts.forEach((part, index) => {
    const last = index === parts.length - 1;
    if (/^\*+$/.test(part)) words.push(REST);
    else if (last && /[A-Za-z0-9]\*+$/.test(part)) words.push({ rest: false, glob: part.replace(/\*+$/, '') }, REST);
    else if (last && part.endsWith('*')) words.push({ rest: false, glob: part }, REST);
    else words.push({ rest: false, glob: part });
  });
  return words;
}

/**
 * Whether some text starting with `prefix` matches `pattern` (read as matchesPattern reads it):
 * what a command whose words after `prefix` are decided only at run time may turn out to be.
 * Before the pattern's first `*` every character must agree with the prefix (as far as either
 * goes); from that `*` on, any rest of the prefix is taken by it and the rest of the pattern by
 * the text still to come. Linear in the lengths.
 */
export function mayMatchStartingWith(pattern: string, prefix: string): boolean {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern.startsWith(prefix);
  const literal = pattern.slice(0, star);
  return prefix.startsWith(literal) || literal.startsWith(prefix);
}

/**
 * Whether some command whose first words are `words` and whose next word starts with `partial`
 * (more words may follow) matches `pattern` word by word (as matchesWords reads it). The pattern
 * positions the words can reach are walked as a set, never backtracking: at worst pattern words ×
 * command words glob matches.
 */
export function mayMatchWordsStartingWith(pattern: string, words: readonly string[], partial: string): boolean {
  const rule = patternWords(pattern);
  // A rest may take no words: a position at a rest reaches the one after it too.
  const closed = (positions: Set<number>) => {
    for (let at = 0; at < rule.length; at += 1) if (positions.has(at) && rule[at]!.rest) positions.add(at + 1);
    return positions;
  };
  let positions = closed(new Set([0]));
  for (const word of words) {
    const next = new Set<number>();
    for (const at of positions) {
      const ruleWord = rule[at];
      if (ruleWord === undefined) continue;
      if (ruleWord.rest) next.add(at);
      else if (matchesPattern(ruleWord.glob, word)) next.add(at + 1);
    }
    if (next.size === 0) return false;
    positions = closed(next);
  }
  for (const at of positions) {
    const ruleWord = rule[at];
    // The pattern is done: only a word that may be empty (an unquoted `$X`) still fits.
    if (ruleWord === undefined ? partial === '' : ruleWord.rest || mayMatchStartingWith(ruleWord.glob, partial))
      return true;
  }
  return false;
}
