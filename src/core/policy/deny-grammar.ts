/**
 * A `bash.deny` rule read for what it means, not for how it is spelled (SPEC 4.3): `git push*`
 * denies `git -C . push`, `git --git-dir=x push` and `git -c a=b push`; `rm -rf*` denies
 * `rm -fr x`, `rm -r -f x`, `rm x -Rf` and `rm --recursive --force x`. A rule is read as its
 * program, its operands in order (the subcommand first) and its options as a set:
 * - the command's options are put aside wherever they stand, each with the word after it when
 *   the option may take one (known grammars say which do; for an unknown option both readings
 *   are tried), so an option placed before a subcommand cannot hide it;
 * - a rule's short options match letter by letter in any cluster (`-rf` is `-f -r`), its long
 *   ones by any prefix a program accepts (`--rec`), or by the short letter the program gives the
 *   same meaning (`--force` is `-f` to rm), `-name` and `--name` alike (Go-style flags);
 * - a subcommand may be written the program's other ways (`docker container run`, `npm i`).
 * Only deny rules are read so; it may refuse a little more than the rule's text (that is the
 * safe side), never less. Allow rules stay matched word by word as written.
 */
import { GIT_FLAG_OPTIONS, GIT_VALUED_OPTIONS } from './git-commands';
import { matchesPattern, mayMatchStartingWith } from './rule-patterns';

/** Per program: long option → the short letter meaning the same, and short letters that are one. */
const SAME_OPTION: Record<string, Record<string, string>> = {
  rm: { recursive: 'r', R: 'r', force: 'f', dir: 'd', interactive: 'i', verbose: 'v' },
  cp: { recursive: 'r', R: 'r', force: 'f', archive: 'a' },
  mv: { force: 'f' },
  ln: { symbolic: 's', force: 'f' },
  chmod: { recursive: 'R' },
  chown: { recursive: 'R' },
  chgrp: { recursive: 'R' },
  git: { force: 'f', delete: 'd', 'set-upstream': 'u', all: 'a', quiet: 'q' },
  npm: { global: 'g', force: 'f', 'save-dev': 'D', yes: 'y', workspace: 'w' },
  pnpm: { global: 'g', force: 'f', 'save-dev': 'D' },
  yarn: { force: 'f', dev: 'D' },
  docker: { detach: 'd', interactive: 'i', tty: 't', volume: 'v', publish: 'p', env: 'e', force: 'f' },
  podman: { detach: 'd', interactive: 'i', tty: 't', volume: 'v', publish: 'p', env: 'e', force: 'f' },
  kubectl: { namespace: 'n', filename: 'f', force: 'f', all: 'A' },
  curl: {
    output: 'o',
    'remote-name': 'O',
    request: 'X',
    data: 'd',
    'upload-file': 'T',
    insecure: 'k',
    location: 'L',
    form: 'F',
  },
  wget: { 'output-document': 'O', 'post-data': 'd' },
  tar: { extract: 'x', get: 'x', create: 'c', file: 'f' },
  sed: { 'in-place': 'i', expression: 'e' },
  grep: { recursive: 'r' },
  pip: { upgrade: 'U', 'force-reinstall': 'f' },
  pip3: { upgrade: 'U', 'force-reinstall': 'f' },
};

/** Options known to take no value (the next word is an operand), per program. */
const FLAGS: Record<string, ReadonlySet<string>> = { git: GIT_FLAG_OPTIONS };

/** Options before the subcommand that take the next word (program-risks.ts knows git's too). */
const VALUED: Record<string, ReadonlySet<string>> = {
  // `--exec-path` alone only prints; read as taking a value here, as it was (the reading that matches more).
  git: new Set([...GIT_VALUED_OPTIONS, '--exec-path']),
};

/** Programs whose options are single-dash words, never clusters of letters. */
const WHOLE_WORD_OPTIONS = new Set(['find', 'java', 'go', 'terraform', 'tofu', 'packer', 'ffmpeg', 'openssl', 'dd']);

/** Other spellings of a subcommand: `[program, written words…] → the words as a rule names them`. */
const SUBCOMMAND_SPELLINGS: Record<string, ReadonlyArray<readonly [readonly string[], readonly string[]]>> = {
  // Git's other ways to push: its plumbing, the dumb-HTTP pusher, `subtree push` (runs `git push`).
  git: [
    [['send-pack'], ['push']],
    [['http-push'], ['push']],
    [['subtree', 'push'], ['push']],
  ],
  docker: containerForms(),
  podman: containerForms(),
  npm: [
    ...['i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add'].map(
      (spelling) => [[spelling], ['install']] as const,
    ),
    ...['un', 'unlink', 'remove', 'rm', 'r'].map((spelling) => [[spelling], ['uninstall']] as const),
    ...['clean-install', 'ic', 'install-clean', 'isntall-clean'].map((spelling) => [[spelling], ['ci']] as const),
    ...['run', 'rum', 'urn'].map((spelling) => [[spelling], ['run-script']] as const),
    ...['run-script', 'rum', 'urn'].map((spelling) => [[spelling], ['run']] as const),
    [['x'], ['exec']],
    [['t'], ['test']],
    [['tst'], ['test']],
  ],
};

function containerForms(): Array<readonly [readonly string[], readonly string[]]> {
  const forms: Array<readonly [readonly string[], readonly string[]]> = [];
  for (const sub of ['run', 'exec', 'create', 'start', 'rm', 'kill', 'stop', 'cp', 'commit', 'attach'])
    forms.push([['container', sub], [sub]]);
  for (const sub of ['push', 'pull', 'build', 'rm', 'tag', 'import', 'load', 'save'])
    forms.push([['image', sub], [sub === 'rm' ? 'rmi' : sub]]);
  forms.push([['builder', 'build'], ['build']], [['buildx', 'build'], ['build']]);
  return forms;
}

type RuleWord = { kind: 'operand'; glob: string } | { kind: 'option'; text: string } | { kind: 'rest' };

/**
 * Whether `words` (the program's name first, already reduced to its name) do what the deny
 * `pattern` names. Undefined when the rule is not shaped as a program and its words (a leading
 * `*`, say): then only its text is matched.
 */
export function deniesByMeaning(pattern: string, words: readonly string[]): boolean {
  const parts = pattern.trim().split(/\s+/).filter(Boolean);
  const head = parts[0];
  const program = words[0];
  if (head === undefined || program === undefined || head.startsWith('*') || head.startsWith('-')) return false;
  const rule = ruleWords(parts.slice(1));
  const restAfterHead = /[A-Za-z0-9]\*+$/.test(head) && parts.length === 1;
  const name = restAfterHead ? head.replace(/\*+$/, '') : head;
  if (!matchesPattern(name.toLowerCase(), program)) return false;
  if (restAfterHead) return true;
  const args = words.slice(1);
  const end = args.indexOf('--');
  const commandOptions = args.filter((word, at) => (end < 0 || at < end) && word.startsWith('-') && word !== '-');
  const options = rule.filter((word): word is { kind: 'option'; text: string } => word.kind === 'option');
  if (!options.every((option) => hasOption(program, commandOptions, option.text))) return false;
  const operands = rule.filter((word) => word.kind !== 'option');
  return spellings(program, operands).some((spelled) =>
    operandsMatch(program, spelled, args, end < 0 ? args.length : end),
  );
}

/**
 * A word of a command as the run-time check sees it: `one`, decided at run time but staying one
 * word (`"$X"`, `"pu$X"`); `many`, one that may become any number of words (`$X`, `$(…)`, a glob):
 * from it on, nothing is known. `prefix`: the literal text the word starts with.
 */
export type RunTimeWord = { text: string; open?: 'one' | 'many'; prefix: string };

/**
 * Whether the command may do what the deny `pattern` names once its run-time words are known
 * (the program, word 0, is known): a run-time word may be an option (giving the rule any option
 * it names), an option's value, or an operand starting with its prefix; from a word that may
 * become many, anything may follow. `git -C . "$SUB"` and `git $(echo push)` may be a push;
 * `git -C "$D" status` and `git checkout "$BRANCH"` are not. The walk of operandsMatch, over the
 * same (word, rule word) pairs: linear in their product.
 */
export function mayDenyByMeaning(pattern: string, words: readonly RunTimeWord[]): boolean {
  const parts = pattern.trim().split(/\s+/).filter(Boolean);
  const head = parts[0];
  const program = words[0]?.text;
  if (head === undefined || program === undefined || head.startsWith('*') || head.startsWith('-')) return false;
  const restAfterHead = /[A-Za-z0-9]\*+$/.test(head) && parts.length === 1;
  const name = restAfterHead ? head.replace(/\*+$/, '') : head;
  if (!matchesPattern(name.toLowerCase(), program)) return false;
  if (restAfterHead) return true;
  const args = words.slice(1);
  const end = args.findIndex((word) => word.open === undefined && word.text === '--');
  const rule = ruleWords(parts.slice(1));
  const options = rule.filter((word): word is { kind: 'option'; text: string } => word.kind === 'option');
  const literalOptions = args
    .filter((word, at) => word.open === undefined && (end < 0 || at < end) && word.text.startsWith('-'))
    .map((word) => word.text)
    .filter((word) => word !== '-');
  // A run-time word that may be an option may be any option the rule names.
  const openOption = args.some(
    (word, at) => word.open !== undefined && (end < 0 || at < end) && mayBeOption(word.prefix),
  );
  if (!openOption && !options.every((option) => hasOption(program, literalOptions, option.text))) return false;
  const operands = rule.filter((word) => word.kind !== 'option');
  return spellings(program, operands).some((spelled) =>
    mayMatchOperands(program, spelled, args, end < 0 ? args.length : end),
  );
}

const mayBeOption = (prefix: string) => prefix === '' || prefix.startsWith('-');

/** operandsMatch's walk, run-time words read every way they may turn out. */
function mayMatchOperands(
  program: string,
  rule: readonly RuleWord[],
  args: readonly RunTimeWord[],
  end: number,
): boolean {
  const reachable = Array.from({ length: args.length + 3 }, () => new Set<number>());
  reachable[0]!.add(0);
  for (let at = 0; at <= args.length; at += 1) {
    for (const ruleAt of reachable[at]!) {
      const ruleWord = rule[ruleAt];
      if (ruleWord?.kind === 'rest') return true;
      const word = args[at];
      if (word === undefined) {
        if (ruleWord === undefined) return true;
        continue;
      }
      const beforeEnd = at < end;
      if (word.open === 'many') {
        // Any words from here on: the rule may still be met unless its next operand cannot
        // start with the word's prefix (or it has no operand left and the word must be one).
        if (beforeEnd && mayBeOption(word.prefix)) return true;
        if (ruleWord === undefined) {
          if (word.prefix === '') return true;
          continue;
        }
        if (ruleWord.kind === 'operand' && mayMatchStartingWith(ruleWord.glob, word.prefix)) return true;
        continue;
      }
      if (at === end) {
        reachable[at + 1]!.add(ruleAt);
        continue;
      }
      const option =
        beforeEnd && (word.open ? mayBeOption(word.prefix) : word.text.startsWith('-') && word.text !== '-');
      if (option) {
        const next = args[at + 1];
        const literal = word.open === undefined;
        const mayTakeValue =
          next !== undefined &&
          at + 1 !== end &&
          !(literal && word.text.includes('=')) &&
          (next.open !== undefined || !next.text.startsWith('-')) &&
          !(literal && FLAGS[program]?.has(word.text));
        if (mayTakeValue) reachable[at + 2]!.add(ruleAt);
        if (!(literal && VALUED[program]?.has(word.text))) reachable[at + 1]!.add(ruleAt);
        if (literal) continue;
      }
      if (ruleWord?.kind !== 'operand') continue;
      // An abbreviation (`npm pu…`) is a prefix of the subcommand: matched by the same test.
      const fits = word.open
        ? mayMatchStartingWith(ruleWord.glob, word.prefix)
        : operandIs(program, ruleWord.glob, word.text, ruleAt === 0);
      if (fits) reachable[at + 1]!.add(ruleAt + 1);
    }
  }
  return false;
}

function ruleWords(parts: readonly string[]): RuleWord[] {
  const words: RuleWord[] = [];
  parts.forEach((part, index) => {
    const last = index === parts.length - 1;
    let text = part;
    let rest = false;
    if (/^\*+$/.test(part)) {
      words.push({ kind: 'rest' });
      return;
    }
    if (last && /[A-Za-z0-9]\*+$/.test(part)) {
      text = part.replace(/\*+$/, '');
      rest = true;
    }
    if (text === '--') return;
    if (text.startsWith('-') && text.length > 1 && !text.includes('*')) words.push({ kind: 'option', text });
    else words.push({ kind: 'operand', glob: text });
    if (rest) words.push({ kind: 'rest' });
  });
  return words;
}

/** Whether the command's option words hold the rule's option (see the file comment). */
function hasOption(program: string, commandOptions: readonly string[], ruleOption: string): boolean {
  if (commandOptions.includes(ruleOption)) return true;
  const same = SAME_OPTION[program] ?? {};
  const canonical = (letter: string) => same[letter] ?? letter;
  const wholeWords = WHOLE_WORD_OPTIONS.has(program);
  const longName = ruleOption.startsWith('--') ? ruleOption.slice(2).split('=')[0]! : undefined;
  const ruleValue = ruleOption.includes('=') ? ruleOption.slice(ruleOption.indexOf('=') + 1) : undefined;
  // A single-dash rule word of several letters is a cluster, or one Go-style long option.
  const letters = longName === undefined && !wholeWords ? [...ruleOption.slice(1)].map(canonical) : [];
  const asLong = longName ?? ruleOption.slice(1).split('=')[0]!;
  const asLetter = longName !== undefined && Object.hasOwn(same, longName) ? same[longName] : undefined;
  const present = new Set<string>();
  const longs: Array<{ name: string; value: string | undefined }> = [];
  for (const option of commandOptions) {
    const [name = '', value] = option.replace(/^--?/, '').split(/=(.*)/s, 2);
    longs.push({ name, value });
    if (option.startsWith('--') || wholeWords) {
      // GNU programs take any unambiguous prefix of a long option (`--rec`, `--forc`).
      for (const [long, letter] of Object.entries(same))
        if (long.length > 1 && name.length >= 2 && long.startsWith(name)) present.add(letter);
      continue;
    }
    for (const letter of option.slice(1)) present.add(canonical(letter));
  }
  const longMatches = longs.some(
    ({ name, value }) =>
      name.length >= 2 && asLong.startsWith(name) && (ruleValue === undefined || value === ruleValue),
  );
  if (longMatches) return true;
  if (ruleValue !== undefined) return false;
  if (asLetter !== undefined && present.has(asLetter)) return true;
  return letters.length > 0 && letters.every((letter) => present.has(letter));
}

/** The rule's operands, and with its subcommand spelled the program's other ways. */
function spellings(program: string, operands: RuleWord[]): RuleWord[][] {
  const list = [operands];
  const globs = operands.map((word) => (word.kind === 'operand' ? word.glob : undefined));
  for (const [written, named] of SUBCOMMAND_SPELLINGS[program] ?? []) {
    if (named.every((word, index) => globs[index] === word))
      list.push([...written.map((glob): RuleWord => ({ kind: 'operand', glob })), ...operands.slice(named.length)]);
  }
  return list;
}

/**
 * Whether the command's operands, options set aside wherever they stand, are the rule's operands
 * in order (a rest takes any further words). An option that may take a value (known to, or
 * unknown) is read both ways: with the next word as its value, and without. Each (word, rule
 * word) pair is visited once, without recursion: linear in their product, never exponential.
 */
function operandsMatch(program: string, rule: readonly RuleWord[], args: readonly string[], end: number): boolean {
  // reachable[at]: the rule positions the words before `at` can have brought the walk to.
  const reachable = Array.from({ length: args.length + 3 }, () => new Set<number>());
  reachable[0]!.add(0);
  for (let at = 0; at <= args.length; at += 1) {
    for (const ruleAt of reachable[at]!) {
      const ruleWord = rule[ruleAt];
      if (ruleWord?.kind === 'rest') return true;
      const word = args[at];
      if (word === undefined) {
        if (ruleWord === undefined) return true;
        continue;
      }
      if (at === end) {
        reachable[at + 1]!.add(ruleAt);
      } else if (at < end && word.startsWith('-') && word !== '-') {
        const next = args[at + 1];
        const mayTakeValue =
          next !== undefined &&
          at + 1 !== end &&
          !word.includes('=') &&
          !next.startsWith('-') &&
          !FLAGS[program]?.has(word);
        if (mayTakeValue) reachable[at + 2]!.add(ruleAt);
        if (!VALUED[program]?.has(word)) reachable[at + 1]!.add(ruleAt);
      } else if (ruleWord?.kind === 'operand' && operandIs(program, ruleWord.glob, word, ruleAt === 0)) {
        reachable[at + 1]!.add(ruleAt + 1);
      }
    }
  }
  return false;
}

/** Programs that run a command named by any unambiguous prefix of it (`npm pub` is `npm publish`). */
const ABBREVIATES = new Set(['npm']);

function operandIs(program: string, glob: string, word: string, subcommand: boolean): boolean {
  if (matchesPattern(glob, word)) return true;
  return subcommand && ABBREVIATES.has(program) && word.length >= 2 && !glob.includes('*') && glob.startsWith(word);
}
