/**
 * `bash.deny` rules see a program however it is named (SPEC 4.3): `curl`, `/usr/bin/curl`,
 * `./curl`, `../bin/curl/`, `\curl`, `c''url`, behind wrappers (`env -i`, `exec`, `nice`,
 * `timeout 5`, `sudo`…, themselves named by any path) and behind programs that run the command
 * in their arguments (`busybox curl`, `strace curl`, `flock f curl`, `find -exec curl`, `trap
 * 'curl x' EXIT`…). A deny rule is matched against the words as written, against the program
 * with its arguments, and against both with every word that names a program cut to its base
 * name (case folded, `.exe` dropped: on a case-insensitive disk `CURL.EXE` runs curl). A program
 * named only at run time cannot be shown not to be denied: it is refused (`deny wins`). A rule
 * is also read for what it means (deny-grammar.ts: options anywhere and spelled any way, other
 * spellings of a subcommand), and a command too complex to analyse that plainly names a denied
 * program is refused (deniedInText). All of it within one budget per command.
 *
 * Allow rules stay as strict as they were (policy-rules.ts matches them as written): `./git`
 * planted in the workspace is not the `git` a `git status*` rule allows.
 */
import { deniesByMeaning } from './deny-grammar';
import { gitFinding, runTimeFinding } from './deny-run-time';
import { matchesPattern, matchesWords } from './rule-patterns';
import { commandStart } from './launchers';
import {
  addsInputWords,
  aliasCommandLine,
  aliasesIn,
  appendInputWords,
  NO_ALIASES,
  withAliases,
  withoutAlias,
  type AliasTable,
  undashedGit,
  withInputWords,
} from './command-indirection';
import { analyseCommand, type CommandSegment } from './shell-command';
import { assignmentsIn, commandValues, type Assigned } from './command-values';
import { basename } from './shell-wrappers';

/**
 * What a deny list says about one segment: a rule it matches, or why it cannot be shown not to
 * match one (and which, when one rule is the reason: a word decided only at run time, a git alias).
 */
export type DenyFinding = { denied: string; words: string[] } | { unknown: string; rule?: string } | undefined;

const MAX_DEPTH = 4;
const MAX_LAUNCHED_WORDS = 1024;

/**
 * What one command may cost to check, in steps of the wildcard walk at worst (pattern length ×
 * text length), across all the places a rule is tried: about a second. Rules that fit every word
 * of a long command (`a*a*a*…`) would otherwise take minutes; past it, the command cannot be
 * checked, and is refused like any other it cannot be shown not to be denied.
 */
export interface CheckBudget {
  steps: number;
}
export const checkBudget = (): CheckBudget => ({ steps: 1e10 });

/** Takes the cost of trying `patterns` on `text` from the budget; false when it is spent. */
function afford(budget: CheckBudget, patterns: readonly string[], textLength: number): boolean {
  for (const pattern of patterns) budget.steps -= (pattern.length + 1) * (textLength + 1);
  return budget.steps >= 0;
}
const TOO_COSTLY = 'the command is too long to check against so many rules';

/** The name a program word is known by: its base name, case folded, without `.exe`. */
export function programName(word: string): string {
  return basename(word)
    .toLowerCase()
    .replace(/\.(exe|com|bat|cmd)$/, '');
}

/** The first deny pattern matching the segment, or why it cannot be told (see the file comment). */
export function deniedSegment(
  patterns: readonly string[],
  segment: CommandSegment,
  depth = 0,
  budget = checkBudget(),
): DenyFinding {
  if (patterns.length === 0) return undefined;
  const found =
    matching(patterns, segment) ??
    launched(patterns, segment, depth, budget) ??
    aliased(patterns, segment, depth, budget) ??
    indirect(patterns, segment, budget) ??
    dashedGit(patterns, segment, budget);
  if (found !== undefined || !segment.readsCommands) return found;
  return { unknown: `\`${segment.program}\` runs the commands it reads from its input, known only when it runs` };
}

function matching(patterns: readonly string[], segment: CommandSegment): DenyFinding {
  for (const words of candidates(segment)) {
    const denied = patterns.find((pattern) => matchesPattern(pattern, words.join(' ')) || matchesWords(pattern, words));
    if (denied !== undefined) return { denied, words };
  }
  // What the rule means, however the options are spelled or placed (deny-grammar.ts).
  for (const index of segment.programWords) {
    const words = segment.argv.slice(index).map((word, at) => (at === 0 ? programName(word) : word));
    const denied = patterns.find((pattern) => deniesByMeaning(pattern, words));
    if (denied !== undefined) return { denied, words };
  }
  return undefined;
}

/**
 * What the words as written do not show: a word decided only at run time, a git alias or external
 * subcommand (deny-run-time.ts). Each rule is walked over the words a few times at most.
 */
function indirect(patterns: readonly string[], segment: CommandSegment, budget: CheckBudget): DenyFinding {
  const length = segment.argv.reduce((sum, word) => sum + word.length + 1, 0);
  if (!afford(budget, patterns, 4 * length)) return { unknown: TOO_COSTLY };
  // `… | xargs git`: the words xargs reads from its input are decided only at run time.
  const whole = withInputWords(segment, programName);
  return runTimeFinding(patterns, whole, programName) ?? gitFinding(patterns, whole, programName);
}

/** `git-push origin`, git's command run by its own name, read as `git push origin`. */
function dashedGit(patterns: readonly string[], segment: CommandSegment, budget: CheckBudget): DenyFinding {
  const split = undashedGit(segment, programName);
  if (split === undefined) return undefined;
  const length = split.argv.reduce((sum, word) => sum + word.length + 1, 0);
  if (!afford(budget, patterns, 8 * length)) return { unknown: TOO_COSTLY };
  return matching(patterns, split) ?? runTimeFinding(patterns, withInputWords(split, programName), programName);
}

/**
 * The first segment a deny list finds something in, the shell aliases the command line defines
 * (and `inherited` ones) expanded where a segment starts with one: `alias g=git` … `g push`.
 */
export function deniedInSegments(
  patterns: readonly string[],
  segments: readonly CommandSegment[],
  depth = 0,
  budget = checkBudget(),
  inherited: AliasTable = NO_ALIASES,
): { segment: CommandSegment; finding: NonNullable<DenyFinding> } | undefined {
  if (patterns.length === 0) return undefined;
  // Every definition counts wherever it stands: a loop or a later line may use it.
  const own = new Map<string, string>();
  for (const segment of segments)
    if (segment.programIndex >= 0 && programName(segment.program) === 'alias') aliasesIn(segment.args, own);
  const aliases = withAliases(inherited, own);
  const assigned = assignmentsIn(segments);
  for (const segment of segments) {
    const finding =
      deniedSegment(patterns, segment, depth, budget) ??
      aliasUse(patterns, segment, aliases, depth, budget) ??
      valuesRun(patterns, segment, assigned, depth, budget);
    if (finding !== undefined) return { segment, finding };
  }
  return undefined;
}

const MAX_VALUES = 64;

/**
 * What the values the segment hands a program to run do (command-values.ts: `GIT_PAGER='curl
 * x'`, `git -c core.sshCommand=…`), each checked as a command line of its own.
 */
function valuesRun(
  patterns: readonly string[],
  segment: CommandSegment,
  assigned: Assigned,
  depth: number,
  budget: CheckBudget,
): DenyFinding {
  const values = commandValues(segment, assigned, programName);
  const lines = new Map<string, string>();
  for (const value of values) {
    if ('open' in value)
      return {
        unknown: `\`${value.what}\` gives a program a command to run that is decided only at run time`,
        rule: patterns[0]!,
      };
    if (!lines.has(value.line)) lines.set(value.line, value.what);
  }
  if (lines.size > MAX_VALUES)
    return {
      unknown: `the command gives programs more than ${MAX_VALUES} commands to run, too many to check`,
      rule: patterns[0]!,
    };
  for (const [line, what] of lines) {
    if (!afford(budget, patterns, 4 * line.length)) return { unknown: TOO_COSTLY, rule: patterns[0]! };
    const finding = commandLineIn(patterns, line, depth + 1, budget);
    if (finding === undefined) continue;
    if ('denied' in finding)
      return {
        unknown: `\`${what}\` gives a program \`${line}\` to run, which matches "${finding.denied}"`,
        rule: finding.denied,
      };
    return {
      unknown: `\`${what}\` gives a program \`${line}\` to run: ${finding.unknown}`,
      rule: finding.rule ?? patterns[0]!,
    };
  }
  return undefined;
}

/** A segment starting with an alias the command line defines: the command line it stands for. */
function aliasUse(
  patterns: readonly string[],
  segment: CommandSegment,
  aliases: AliasTable,
  depth: number,
  budget: CheckBudget,
): DenyFinding {
  const at = segment.programWords[0];
  if (at === undefined) return undefined;
  const name = segment.argv[at] ?? '';
  if (segment.facts[at]?.computed || aliases.get(name) === undefined) return undefined;
  const rest = segment.argv.slice(at + 1).map((text, k) => ({ text, facts: segment.facts[at + 1 + k] }));
  const line = aliasCommandLine(name, rest, aliases);
  return asAlias(patterns, name, commandLineIn(patterns, line, depth + 1, budget, aliases, name));
}

/** What the alias's command line was found to do, said of the alias (and always naming a rule). */
function asAlias(patterns: readonly string[], name: string, finding: DenyFinding): DenyFinding {
  if (finding === undefined) return undefined;
  if ('denied' in finding)
    return {
      unknown: `the alias \`${name}\` the command defines makes it \`${finding.words.join(' ')}\`, which matches "${finding.denied}"`,
      rule: finding.denied,
    };
  return {
    unknown: `the alias \`${name}\` the command defines runs what ${finding.unknown}`,
    rule: finding.rule ?? patterns[0]!,
  };
}

/** The segment's words as written, from its program on, and both with program words by name. */
function candidates(segment: CommandSegment): string[][] {
  const { argv } = segment;
  const named = argv.map((word, index) => (segment.programWords.includes(index) ? programName(word) : word));
  const list = [argv, named];
  for (const index of segment.programWords) list.push(argv.slice(index), named.slice(index));
  return list;
}

/**
 * For a launcher: each argument as the start of the command it may run. A launcher among them
 * (`strace nice busybox curl`) needs no walk of its own: every later start is tried here.
 */
function launched(
  patterns: readonly string[],
  segment: CommandSegment,
  depth: number,
  budget: CheckBudget,
): DenyFinding {
  const index = segment.programIndex;
  const name = index < 0 ? '' : programName(segment.argv[index] ?? '');
  const from = commandStart(name, segment.argv, index);
  if (from === undefined) return undefined;
  // Every argument is a possible start: bounded, or checking would take quadratic time.
  if (segment.argv.length - from > MAX_LAUNCHED_WORDS)
    return { unknown: `\`${name}\` is given more than ${MAX_LAUNCHED_WORDS} words, too many to check` };
  const inner = (start: number): CommandSegment => {
    const started = {
      ...segment,
      argv: segment.argv.slice(start),
      facts: segment.facts.slice(start),
      programIndex: 0,
      programWords: [0],
    };
    // `… | parallel git`: the words it reads from its input are added to the command.
    return addsInputWords(name) ? appendInputWords(started) : started;
  };
  // A rule starting with `*` matches a later start only if it matches the earliest one.
  const anywhere = patterns.filter((pattern) => ruleStart(pattern) === '');
  const found = anywhere.length > 0 ? matching(anywhere, inner(from)) : undefined;
  if (found !== undefined) return found;
  // The characters from each start on: what trying a rule there walks over (four times).
  let remaining = segment.argv.slice(from).reduce((sum, word) => sum + word.length + 1, 0);
  for (let start = from; start < segment.argv.length; start += 1) {
    const word = segment.argv[start] ?? '';
    const text = remaining;
    remaining -= word.length + 1;
    // `{}` is find's and xargs's placeholder, not a brace expansion.
    if (segment.facts[start]?.computed && word !== '{}')
      return { unknown: `\`${name}\` runs a command whose words are decided only at run time (\`${word}\`)` };
    const fitting = patterns.filter((pattern) => ruleStart(pattern) !== '' && mayStart(pattern, word));
    if (!afford(budget, fitting, 4 * text)) return { unknown: TOO_COSTLY };
    const finding =
      fitting.length > 0 ? (matching(fitting, inner(start)) ?? indirect(fitting, inner(start), budget)) : undefined;
    if (finding !== undefined) return finding;
    // `;` and `{}` are find's and xargs's own words, not a command line.
    if (SHELL_SYNTAX.test(word) && word !== ';' && word !== '{}') {
      // An option's value given in the same word is a command line too: `su --command='curl x'`,
      // `su -c'curl x'`, `git rebase --exec='git push'`.
      for (const line of [word, ...attachedValues(word)]) {
        const nested = commandLineIn(patterns, line, depth + 1, budget);
        if (nested !== undefined) return nested;
      }
    }
  }
  return undefined;
}

/** The values an option word may carry attached: after `=`, and after a short option's letter. */
function attachedValues(word: string): string[] {
  if (!/^-[^-\s]/.test(word) && !/^--[^=\s]+=/.test(word)) return [];
  const equals = word.indexOf('=');
  const values = equals > 0 && !/\s/.test(word.slice(0, equals)) ? [word.slice(equals + 1)] : [];
  if (!word.startsWith('--')) values.push(word.slice(2));
  return values;
}

/** The literal start of a rule, before any `*` or space: a command must start so to match it. */
function ruleStart(pattern: string): string {
  return /^[^*\s]*/.exec(pattern.trim())?.[0] ?? '';
}

/** Whether a command starting with `word` (as written, or by its program's name) may match. */
function mayStart(pattern: string, word: string, name = programName(word)): boolean {
  const start = ruleStart(pattern);
  return start === '' || word.startsWith(start) || name.startsWith(start.toLowerCase());
}

/** `alias name='curl x'`: what an alias will run is a command line of its own. */
function aliased(
  patterns: readonly string[],
  segment: CommandSegment,
  depth: number,
  budget: CheckBudget,
): DenyFinding {
  if (segment.programIndex < 0 || programName(segment.program) !== 'alias') return undefined;
  for (const word of segment.args) {
    const equals = word.indexOf('=');
    if (equals <= 0) continue;
    const finding = commandLineIn(patterns, word.slice(equals + 1), depth + 1, budget);
    if (finding !== undefined) return finding;
  }
  return undefined;
}

/**
 * A launcher's argument read as a command line of its own (`su -c 'curl x'`); for an alias's
 * text, the aliases around it (but the one being expanded: the shell does not expand it in itself).
 */
function commandLineIn(
  patterns: readonly string[],
  line: string,
  depth: number,
  budget: CheckBudget,
  aliases: AliasTable = NO_ALIASES,
  expanding?: string,
): DenyFinding {
  if (depth > MAX_DEPTH) return { unknown: 'commands are nested too deeply to check' };
  const around = expanding === undefined ? aliases : withoutAlias(aliases, expanding);
  const analysis = analyseCommand(line);
  // What cannot be analysed cannot be shown not to run a denied program: deny wins.
  if (!analysis.ok)
    return deniedInText(patterns, line, depth, budget, around) ?? { unknown: analysis.reason.replace(/\.$/, '') };
  return deniedInSegments(patterns, analysis.segments, depth, budget, around)?.finding;
}

const SHELL_SYNTAX = /[\s;&|()<>`$'"\\{}]/;
const BREAKS = /[\s;&|(){}<>`]/;
const GROUP_ENDS = /[;&|(){}`\n\r]/;
const SCANNED_WORDS = 64;

/**
 * A command too complex to analyse (a function, a group, a loop, a here-document…) that plainly
 * names a denied program: every run of words in it, between shell operators, is tried as a
 * command. It may refuse a mention (`cat <<EOF … curl … EOF`) rather than ask: deny wins.
 */
export function deniedInText(
  patterns: readonly string[],
  command: string,
  depth = 0,
  budget = checkBudget(),
  inherited: AliasTable = NO_ALIASES,
): DenyFinding {
  if (patterns.length === 0) return undefined;
  const groups = roughGroups(command);
  const own = new Map<string, string>();
  for (const group of groups) if (group[0] === 'alias') aliasesIn(group.slice(1), own);
  const aliases = withAliases(inherited, own);
  const rough = groups.map(roughSegment);
  const assigned = assignmentsIn(rough);
  for (const segment of rough) {
    const finding = valuesRun(patterns, segment, assigned, depth, budget);
    if (finding !== undefined) return finding;
  }
  // A rule starting with `*` matches some run of a group's words only if it matches the group.
  const anywhere = patterns.filter((pattern) => ruleStart(pattern) === '');
  const headed = patterns.filter((pattern) => ruleStart(pattern) !== '');
  for (const group of groups) {
    const text = group.join(' ');
    const everywhere = anywhere.find(
      (pattern) =>
        matchesPattern(pattern, text) || matchesPattern(pattern, text.toLowerCase()) || matchesWords(pattern, group),
    );
    if (everywhere !== undefined) return { denied: everywhere, words: group };
    for (let start = 0; start < group.length; start += 1) {
      const first = group[start] ?? '';
      const name = programName(first);
      const fitting = headed.filter((pattern) => mayStart(pattern, first, name));
      if (fitting.length > 0) {
        const named = [name, ...group.slice(start + 1, start + SCANNED_WORDS)];
        if (!afford(budget, fitting, 3 * named.join(' ').length)) return { unknown: TOO_COSTLY };
        const denied = fitting.find(
          (pattern) =>
            matchesPattern(pattern, named.join(' ')) || matchesWords(pattern, named) || deniesByMeaning(pattern, named),
        );
        if (denied !== undefined) return { denied, words: named };
        // A word decided only at run time, or a git alias, that may make it match one.
        const unsure = indirect(fitting, roughSegment(named), budget);
        if (unsure !== undefined) return unsure;
      }
      // An alias the command line defines, wherever a command may start (`f(){ g push; }`).
      if (aliases.get(first) !== undefined) {
        const rest = group.slice(start + 1, start + SCANNED_WORDS).map((text) => ({ text }));
        const line = aliasCommandLine(first, rest, aliases);
        const finding = asAlias(patterns, first, commandLineIn(patterns, line, depth + 1, budget, aliases, first));
        if (finding !== undefined) return finding;
      }
      // A quoted string may be run as a command of its own (`sh -c '…'` in a function).
      if (depth < MAX_DEPTH && first !== command && SHELL_SYNTAX.test(first)) {
        const nested = deniedInText(patterns, first, depth + 1, budget);
        if (nested !== undefined) return nested;
      }
    }
  }
  return undefined;
}

/** Rough words as a segment: every word holding `$`, `` ` `` or a glob character is run-time. */
function roughSegment(words: readonly string[]): CommandSegment {
  return {
    argv: [...words],
    program: words[0] ?? '',
    args: words.slice(1),
    facts: words.map((word) => {
      const open = /[$`*?[]/.test(word);
      return { computed: open, glob: false, tilde: false, ...(open ? { splits: true as const } : {}) };
    }),
    programIndex: 0,
    programWords: [0],
  };
}

/**
 * The command's words, quotes and escapes taken off (`$'\x63'` decoded), in groups between
 * shell operators. Rough on purpose: it is read only to find a denied program's name.
 */
function roughGroups(command: string): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let word: string | undefined;
  const endWord = () => {
    if (word !== undefined) group.push(word);
    word = undefined;
  };
  const endGroup = () => {
    endWord();
    if (group.length > 0) groups.push(group);
    group = [];
  };
  for (let at = 0; at < command.length; at += 1) {
    const c = command.charAt(at);
    if (c === "'" || c === '"' || (c === '$' && command.charAt(at + 1) === "'")) {
      const ansi = c === '$';
      if (ansi) at += 1;
      const quote = command.charAt(at);
      let end = at + 1;
      while (end < command.length && command.charAt(end) !== quote)
        end += command.charAt(end) === '\\' && quote !== "'" ? 2 : 1;
      if (ansi)
        for (; end < command.length && command.charAt(end) !== "'"; end += command.charAt(end) === '\\' ? 2 : 1);
      const inside = command.slice(at + 1, end);
      word = (word ?? '') + (ansi ? decodeAnsiC(inside) : quote === '"' ? inside.replace(/\\(.)/gs, '$1') : inside);
      at = end;
    } else if (c === '\\') {
      if (command.charAt(at + 1) !== '\n') word = (word ?? '') + command.charAt(at + 1);
      at += 1;
    } else if (GROUP_ENDS.test(c)) {
      // A substitution (`$(…)`, `` `…` ``) leaves a `$` where its output goes: a run-time word.
      if (c === '`') word = `${word ?? ''}\`…\``;
      else if (c === '(' && word?.endsWith('$')) word = `${word}(…)`;
      endGroup();
    } else if (BREAKS.test(c)) endWord();
    else word = (word ?? '') + c;
  }
  endGroup();
  return groups;
}

/** The text of an ANSI-C quoted string (`$'\x63url'`), escapes decoded. */
function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_all, code: string) => {
      const kind = code.charAt(0);
      if (kind === 'x' || kind === 'u' || kind === 'U')
        return String.fromCodePoint(Number.parseInt(code.slice(1), 16) % 0x110000);
      if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\x07',
        b: '\b',
        e: '\x1b',
        E: '\x1b',
        f: '\f',
        v: '\v',
      };
      return simple[kind] ?? (kind === 'c' ? '' : kind);
    },
  );
}
