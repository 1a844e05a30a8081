/**
 * The tool rules of `.openagent/agent.yaml` (SPEC 4.3) as the loop's ToolPolicy. In order:
 * `tools.deny` refuses (deny wins); `tools.allow`, when set, refuses every tool it does not
 * name; for tools that run a command (their traits say so), the command is parsed into segments (pipes, `;`, `&&`,
 * `||`, `$()`, backticks, redirections — see shell-command.ts): a segment matching
 * `bash.deny` refuses, a command too complex to analyse asks, and one whose every segment
 * matches `bash.allow` word by word (matchesWords) runs without asking; `approvals.require_for` asks; `approvals.auto_approve`
 * (tool patterns, `read_only`, or `confined`: commands that run in the sandbox) runs without asking. Anything else is the default: reading
 * tools run, the rest ask. Protected paths ask whatever the policy says.
 */
import type { AgentPolicy } from './agent-policy';
import { defaultToolPolicy, type PolicyVerdict, type ToolPolicy } from './approval';
import { analyseCommand, type CommandSegment } from './shell-command';

const FILE = '.openagent/agent.yaml';

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

const matchesAny = (patterns: readonly string[] | undefined, value: string) =>
  patterns?.some((pattern) => matchesPattern(pattern, value)) ?? false;

/** Whether the policy lets the model see a tool at all (tools.allow / tools.deny). */
export function policyOffers(policy: AgentPolicy | undefined, toolName: string): boolean {
  const tools = policy?.tools;
  if (matchesAny(tools?.deny, toolName)) return false;
  return !tools?.allow || matchesAny(tools.allow, toolName);
}

/**
 * @param origin which policy a rule (`tools.deny "bash"`) comes from, in words, when several
 * layers make the policy (policy-layers.ts); refusals name it. Default: the workspace's file.
 */
export function toolPolicyFrom(
  policy: () => AgentPolicy | undefined,
  origin: (rule: string) => string | undefined = () => undefined,
): ToolPolicy {
  const where = (rule: string) => origin(rule) ?? FILE;
  return {
    evaluate(call): PolicyVerdict {
      const current = policy();
      if (!current) return defaultToolPolicy.evaluate(call);
      const tools = current.tools;
      const denied = tools?.deny?.find((pattern) => matchesPattern(pattern, call.toolName));
      if (denied !== undefined)
        return { action: 'deny', reason: `${call.toolName} is in tools.deny of ${where(`tools.deny "${denied}"`)}.` };
      if (tools?.allow && !matchesAny(tools.allow, call.toolName))
        return {
          action: 'deny',
          reason: `${call.toolName} is not in tools.allow of ${where(`tools.allow "${tools.allow[0] ?? ''}"`)}.`,
        };

      let verdict: PolicyVerdict | undefined;
      if (call.command !== undefined && tools?.bash) verdict = commandVerdict(tools.bash, call.command, where);
      if (verdict?.action === 'deny') return verdict;
      if (matchesAny(current.approvals?.require_for, call.toolName)) return { action: 'ask' };
      if (!verdict) {
        const auto = current.approvals?.auto_approve ?? [];
        const pattern =
          auto.find((candidate) => matchesPattern(candidate, call.toolName)) ??
          (call.readOnly && auto.includes('read_only') ? 'read_only' : undefined) ??
          (call.confined && call.command !== undefined && auto.includes('confined') ? 'confined' : undefined);
        if (pattern) verdict = { action: 'allow', source: 'policy', rule: `approvals.auto_approve "${pattern}"` };
      }
      // A protected path, a secret or a path decided at run time still asks: the executor sees to it.
      return verdict ?? defaultToolPolicy.evaluate(call);
    },
  };
}

function commandVerdict(
  rules: NonNullable<NonNullable<AgentPolicy['tools']>['bash']>,
  command: string,
  where: (rule: string) => string,
): PolicyVerdict | undefined {
  const analysis = analyseCommand(command);
  // What cannot be analysed cannot be checked against the deny rules: a person decides.
  if (!analysis.ok) return { action: 'ask' };
  for (const segment of analysis.segments) {
    const denied = rules.deny?.find((pattern) => denyMatches(pattern, segment));
    if (denied)
      return {
        action: 'deny',
        reason: `\`${segment.argv.join(' ')}\` matches bash.deny "${denied}" in ${where(`tools.bash.deny "${denied}"`)}.`,
      };
  }
  // A redirection writes a file: only duplicating a stream or discarding it keeps an allow.
  const writes = analysis.redirections.some(
    (redirection) =>
      !(/&$/.test(redirection.op) && /^(\d+|-)$/.test(redirection.target)) && redirection.target !== '/dev/null',
  );
  if (!rules.allow?.length || analysis.segments.length === 0 || writes) return undefined;
  const matched = analysis.segments.map((segment) =>
    rules.allow!.find((pattern) => matchesWords(pattern, segment.argv)),
  );
  if (matched.some((pattern) => pattern === undefined)) return undefined;
  return {
    action: 'allow',
    source: 'policy',
    rule: `bash.allow ${[...new Set(matched)].map((p) => `"${p}"`).join(', ')}`,
  };
}

/**
 * A deny pattern matches a segment broadly: as written, or the program that really runs with
 * its arguments, as one line or word by word.
 */
function denyMatches(pattern: string, segment: CommandSegment): boolean {
  const program = segment.programIndex < 0 ? [] : segment.argv.slice(segment.programIndex);
  return (
    matchesPattern(pattern, segment.argv.join(' ')) ||
    (program.length > 0 && matchesPattern(pattern, program.join(' '))) ||
    matchesWords(pattern, segment.argv) ||
    (program.length > 0 && matchesWords(pattern, program))
  );
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
