/**
 * The tool rules of `.openagent/agent.yaml` (SPEC 4.3) as the loop's ToolPolicy. In order:
 * `tools.deny` refuses (deny wins); `tools.allow`, when set, refuses every tool it does not
 * name; for bash and background_run, the command is parsed into segments (pipes, `;`, `&&`,
 * `||`, `$()`, backticks, redirections — see shell-command.ts): a segment matching
 * `bash.deny` refuses, a command too complex to analyse asks, and one whose every segment
 * matches `bash.allow` runs without asking; `approvals.require_for` asks; `approvals.auto_approve`
 * (tool patterns, or `read_only`) runs without asking. Anything else is the default: reading
 * tools run, the rest ask. Protected paths ask whatever the policy says.
 */
import type { AgentPolicy } from './agent-policy';
import { defaultToolPolicy, type PolicyVerdict, type ToolPolicy } from './approval';
import { needsAskingAnyway } from './auto-approval';
import { analyseCommand, type CommandSegment } from './shell-command';

const COMMAND_TOOLS = new Set(['bash', 'background_run']);
const FILE = '.openagent/agent.yaml';

/**
 * `*` matches any run of characters; everything else is literal. Matched without regular
 * expressions: a pattern like `*a*a*a*a*a*a*a*a*b` made a backtracking regex run for minutes on
 * a line of `a`s. This walk is at worst pattern length × value length.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  let at = 0;
  let position = 0;
  let star = -1;
  let resume = 0;
  while (position < value.length) {
    if (at < pattern.length && pattern[at] === '*') {
      star = at++;
      resume = position;
    } else if (at < pattern.length && pattern[at] === value[position]) {
      at++;
      position++;
    } else if (star >= 0) {
      at = star + 1;
      position = ++resume;
    } else return false;
  }
  while (at < pattern.length && pattern[at] === '*') at++;
  return at === pattern.length;
}

const matchesAny = (patterns: readonly string[] | undefined, value: string) =>
  patterns?.some((pattern) => matchesPattern(pattern, value)) ?? false;

/** Whether the policy lets the model see a tool at all (tools.allow / tools.deny). */
export function policyOffers(policy: AgentPolicy | undefined, toolName: string): boolean {
  const tools = policy?.tools;
  if (matchesAny(tools?.deny, toolName)) return false;
  return !tools?.allow || matchesAny(tools.allow, toolName);
}

export function toolPolicyFrom(policy: () => AgentPolicy | undefined): ToolPolicy {
  return {
    evaluate(call): PolicyVerdict {
      const current = policy();
      if (!current) return defaultToolPolicy.evaluate(call);
      const tools = current.tools;
      if (matchesAny(tools?.deny, call.toolName))
        return { action: 'deny', reason: `${call.toolName} is in tools.deny of ${FILE}.` };
      if (tools?.allow && !matchesAny(tools.allow, call.toolName))
        return { action: 'deny', reason: `${call.toolName} is not in tools.allow of ${FILE}.` };

      let verdict: PolicyVerdict | undefined;
      if (COMMAND_TOOLS.has(call.toolName) && tools?.bash) verdict = commandVerdict(tools.bash, call.input);
      if (verdict?.action === 'deny') return verdict;
      if (matchesAny(current.approvals?.require_for, call.toolName)) return { action: 'ask' };
      if (!verdict) {
        const auto = current.approvals?.auto_approve ?? [];
        const pattern =
          auto.find((candidate) => matchesPattern(candidate, call.toolName)) ??
          (call.readOnly && auto.includes('read_only') ? 'read_only' : undefined);
        if (pattern) verdict = { action: 'allow', source: 'policy', rule: `approvals.auto_approve "${pattern}"` };
      }
      if (verdict?.action === 'allow') {
        // A protected path (.git, .env, outside the workspace…) always asks.
        return !call.readOnly && needsAskingAnyway(call.toolName, call.input) ? { action: 'ask' } : verdict;
      }
      return verdict ?? defaultToolPolicy.evaluate(call);
    },
  };
}

function commandVerdict(
  rules: NonNullable<NonNullable<AgentPolicy['tools']>['bash']>,
  input: unknown,
): PolicyVerdict | undefined {
  const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
  if (typeof command !== 'string') return { action: 'ask' };
  const analysis = analyseCommand(command);
  // What cannot be analysed cannot be checked against the deny rules: a person decides.
  if (!analysis.ok) return { action: 'ask' };
  for (const segment of analysis.segments) {
    const denied = rules.deny?.find((pattern) => segmentMatches(pattern, segment));
    if (denied)
      return { action: 'deny', reason: `\`${segment.argv.join(' ')}\` matches bash.deny "${denied}" in ${FILE}.` };
  }
  if (!rules.allow?.length || analysis.segments.length === 0 || analysis.redirections.length > 0) return undefined;
  const matched = analysis.segments.map((segment) => rules.allow!.find((pattern) => segmentMatches(pattern, segment)));
  if (matched.some((pattern) => pattern === undefined)) return undefined;
  return {
    action: 'allow',
    source: 'policy',
    rule: `bash.allow ${[...new Set(matched)].map((p) => `"${p}"`).join(', ')}`,
  };
}

/** A command pattern matches a segment as written, or the program that really runs with its arguments. */
function segmentMatches(pattern: string, segment: CommandSegment): boolean {
  const written = segment.argv.join(' ');
  const program = [segment.program, ...segment.args].join(' ');
  return matchesPattern(pattern, written) || (segment.program !== '' && matchesPattern(pattern, program));
}
