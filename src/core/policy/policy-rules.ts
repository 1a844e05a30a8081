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
import { deniedInSegments, deniedInText } from './denied-programs';
import { matchesPattern, matchesWords } from './rule-patterns';
import { analyseCommand } from './shell-command';
import { hostMatchesAny } from '../web/web-urls';

const FILE = '.openagent/agent.yaml';

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
 * @param broken the policy file that is there but not applied (mistakes, not readable), if any.
 * Fail safe: what it meant to deny is unknown, so while it is broken every call that changes
 * something asks a person each time — the deny rules of the other layers still refuse, their
 * allow and auto-approve rules, auto-approve, `--yes` and "Always" do not answer. Reading tools
 * run as without a policy (reads of secrets ask anyway).
 */
export function toolPolicyFrom(
  policy: () => AgentPolicy | undefined,
  origin: (rule: string) => string | undefined = () => undefined,
  broken: () => string | undefined = () => undefined,
): ToolPolicy {
  const where = (rule: string) => origin(rule) ?? FILE;
  return {
    evaluate(call): PolicyVerdict {
      const current = policy();
      const lockdown = (): PolicyVerdict | undefined => {
        const file = broken();
        if (file === undefined || call.readOnly || !call.needsApproval) return undefined;
        return { action: 'ask', inPerson: `${file} is broken and not applied, so every change asks until it is fixed` };
      };
      if (!current) return lockdown() ?? defaultToolPolicy.evaluate(call);
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
      const locked = lockdown();
      if (locked) return locked;
      if (matchesAny(current.approvals?.require_for, call.toolName)) return { action: 'ask' };
      if (!verdict) {
        const auto = current.approvals?.auto_approve ?? [];
        const pattern =
          auto.find((candidate) => matchesPattern(candidate, call.toolName)) ??
          (call.readOnly && auto.includes('read_only') ? 'read_only' : undefined) ??
          (call.confined && call.command !== undefined && auto.includes('confined') ? 'confined' : undefined);
        if (pattern) verdict = { action: 'allow', source: 'policy', rule: `approvals.auto_approve "${pattern}"` };
      }
      const site =
        call.fetchHost !== undefined ? hostMatchesAny(current.network?.fetch_allow, call.fetchHost) : undefined;
      if (!verdict && site !== undefined)
        verdict = { action: 'allow', source: 'policy', rule: `network.fetch_allow "${site}"` };
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
  const deny = rules.deny ?? [];
  if (!analysis.ok) {
    // A program named only at run time cannot be shown not to be a denied one: deny wins.
    if (deny.length > 0 && analysis.runtimeProgram)
      return {
        action: 'deny',
        reason: `${analysis.reason.replace(/\.$/, '')}, so it cannot be checked against bash.deny in ${where(`tools.bash.deny "${deny[0]}"`)}. Name the program plainly.`,
      };
    // A denied program named plainly in what cannot be analysed (a function, a group…): refused.
    const plain = deniedInText(deny, command);
    if (plain !== undefined && 'denied' in plain)
      return {
        action: 'deny',
        reason: `\`${plain.words.join(' ')}\` in a command too complex to analyse matches bash.deny "${plain.denied}" in ${where(`tools.bash.deny "${plain.denied}"`)}.`,
      };
    // A word decided only at run time, or a git alias, that may make it match a rule: deny wins.
    if (plain !== undefined && 'rule' in plain && plain.rule !== undefined)
      return {
        action: 'deny',
        reason: `${plain.unknown}, so a command too complex to analyse cannot be checked against bash.deny in ${where(`tools.bash.deny "${plain.rule}"`)}.`,
      };
    // Anything else that cannot be analysed cannot be checked either: a person decides.
    return { action: 'ask' };
  }
  const denied = deniedInSegments(deny, analysis.segments);
  if (denied !== undefined) {
    const { segment, finding } = denied;
    if ('unknown' in finding)
      return {
        action: 'deny',
        reason: `${finding.unknown}, so \`${segment.argv.join(' ')}\` cannot be checked against bash.deny in ${where(`tools.bash.deny "${finding.rule ?? deny[0]}"`)}.`,
      };
    return {
      action: 'deny',
      reason: `\`${segment.argv.join(' ')}\` matches bash.deny "${finding.denied}" in ${where(`tools.bash.deny "${finding.denied}"`)}.`,
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
