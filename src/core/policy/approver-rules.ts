/**
 * Which tool calls need a named approver (`approvals.approvers`, issue 37), and who. Matching
 * reuses the policy's own matchers, so an approver rule sees a command the way `bash.deny` does:
 * any segment of a compound command, behind wrappers (`env X=1 git push`, `sudo git push`,
 * `bash -c 'git push'`), a program named only at run time counts as matching (it cannot be
 * shown not to be a push), and so does a command too complex to analyse that plainly names one.
 * Paths are workspace-relative, normalised (`./infra/../infra/x`), case as written.
 *
 * Layers: the team's rules, the user's and the workspace's all apply (they add up; none removes
 * another's), but for a call several layers' rules match, only the most authoritative layer's
 * approvers decide (the team's, then the user's): a layer above can ask more calls, never name
 * someone else to approve what the team guards. The shortest timeout wins, and `on_unreachable:
 * block` from any layer wins over `wait`.
 */
import * as path from 'node:path';
import type { AgentPolicy } from './agent-policy';
import { parseApprovalTimeout, type ApproverRule } from './approver-schema';
import { deniedInSegments, deniedInText } from './denied-programs';
import { matchesPattern } from './rule-patterns';
import { analyseCommand } from './shell-command';
import { pathOfInput } from './protected-paths';
import { compileGlob, type PathMatcher } from '../workspace/glob';

type Approvals = NonNullable<AgentPolicy['approvals']>;

/** The call as approver rules see it. */
export interface ApproverCall {
  toolName: string;
  input: unknown;
  /** The shell command line the call runs, if any. */
  command?: string;
  /** Paths the call names (as given, or real paths once resolved): absolute or workspace-relative. */
  paths?: readonly string[];
  /** Path words decided only when the command runs, as written (`$D/x`, `inf*`, `~/x`). */
  openPaths?: readonly string[];
}

/** What the matching rules ask for together. */
export interface ApproverRequirement {
  /** Everyone named by any matching rule, in order, once each. */
  approvers: string[];
  /** The shortest timeout among the matching rules. */
  timeoutMs: number;
  /** Why it matched, in words ("bash \"git push*\""), for the approver and the audit trail. */
  matched: string[];
}

/** The rules that match `call`, merged into one requirement; undefined when none does. */
export function approversFor(
  rules: readonly ApproverRule[] | undefined,
  call: ApproverCall,
  root: string | undefined,
): ApproverRequirement | undefined {
  if (!rules?.length) return undefined;
  const matched: string[] = [];
  const hits: ApproverRule[] = [];
  let timeoutMs = Number.POSITIVE_INFINITY;
  const relatives = relativePaths(call, root);
  for (const rule of rules) {
    const why = ruleMatch(rule, call, relatives, root);
    if (why === undefined) continue;
    matched.push(why);
    hits.push(rule);
    timeoutMs = Math.min(timeoutMs, parseApprovalTimeout(rule.timeout));
  }
  if (!hits.length) return undefined;
  // Who decides is the most authoritative matching layer's to say: a repository's rule naming
  // another approver for a call the team's rule guards would let that one approve it instead.
  const top = Math.min(...hits.map(tierOf));
  const approvers: string[] = [];
  for (const rule of hits.filter((hit) => tierOf(hit) === top))
    for (const name of rule.by) if (!approvers.includes(name)) approvers.push(name);
  return { approvers, timeoutMs, matched };
}

/** The layer a merged rule came from: 0 the most authoritative (the team's, else the user's). */
const TIER = Symbol('approver rule layer');
type TieredRule = ApproverRule & { [TIER]?: number };
const tierOf = (rule: ApproverRule): number => (rule as TieredRule)[TIER] ?? 0;

function ruleMatch(
  rule: ApproverRule,
  call: ApproverCall,
  relatives: string[],
  root: string | undefined,
): string | undefined {
  const tool = rule.match.tools?.find((pattern) => matchesPattern(pattern, call.toolName));
  if (tool !== undefined) return `tools "${tool}"`;
  if (call.command !== undefined && rule.match.bash?.length) {
    const bash = commandMatch(rule.match.bash, call.command);
    if (bash !== undefined) return bash;
  }
  for (const glob of rule.match.paths ?? []) {
    const expression = pathExpression(glob);
    const hit = relatives.find((relative) => expression.test(relative));
    if (hit !== undefined) return `paths "${glob}" (${hit})`;
    const open = call.openPaths?.find((word) => mayName(word, glob, root));
    if (open !== undefined) return `paths "${glob}" (\`${open}\` is a path decided only when the command runs)`;
  }
  return undefined;
}

const OPEN_PART = /[$`{]|^~/;
const WILDCARD = /[*?[]/;

/**
 * Whether a path word decided at run time (a glob, a variable, `~`, a brace) may name a path
 * `glob` guards: what cannot be shown not to is taken to. Read part by part: a part holding a
 * variable may be any number of parts; a wildcard part must match the guarded part it stands
 * for; a word that reaches the end of the guarded prefix is inside it (or the folder itself).
 */
function mayName(word: string, glob: string, root: string | undefined): boolean {
  let text = word.replace(/\\/g, '/');
  if (OPEN_PART.test(text.split('/')[0] ?? '')) return true;
  if (text.startsWith('/')) {
    if (!root) return true;
    const base = `${root.replace(/\\/g, '/').replace(/\/+$/, '')}/`;
    if (!text.startsWith(base))
      return WILDCARD.test(text) || OPEN_PART.test(text)
        ? literalPrefixOf(text).length < base.length && base.startsWith(literalPrefixOf(text))
        : false;
    text = text.slice(base.length);
  }
  const parts = path.posix
    .normalize(text)
    .replace(/^(\.\/)+/, '')
    .split('/')
    .filter((part) => part !== '');
  if (parts[0] === '..') return false;
  const guarded = path.posix
    .normalize(glob.replace(/\\/g, '/'))
    .replace(/^(\.\/)+/, '')
    .replace(/\/\*\*$|\/+$/, '')
    .split('/');
  for (const [index, part] of parts.entries()) {
    if (OPEN_PART.test(part)) return true;
    const want = guarded[index];
    if (want === undefined || want === '**') return true;
    const partIsPattern = WILDCARD.test(part);
    if (WILDCARD.test(want) || want.includes('{')) {
      if (partIsPattern || !globRegExp(want).test(part)) return partIsPattern;
      continue;
    }
    if (partIsPattern ? !globRegExp(part).test(want) : part !== want) return false;
  }
  return parts.length >= guarded.length;
}

function literalPrefixOf(text: string): string {
  const at = text.search(/[$`{*?[~]/);
  return at < 0 ? text : text.slice(0, at);
}

/** A glob that is no glob (an unbalanced `{`, a bad class) is read as plain text. */
function globRegExp(glob: string): PathMatcher {
  try {
    return compileGlob(glob);
  } catch {
    return { test: (text) => text === glob };
  }
}

/** Like bash.deny: any segment; what cannot be told apart from a match is one. */
function commandMatch(patterns: readonly string[], command: string): string | undefined {
  const analysis = analyseCommand(command);
  if (!analysis.ok) {
    if (analysis.runtimeProgram) return `bash "${patterns[0]}" (the program is named only when it runs)`;
    const plain = deniedInText(patterns, command);
    if (plain === undefined) return undefined;
    return 'denied' in plain ? `bash "${plain.denied}"` : `bash "${plain.rule ?? patterns[0]}" (${plain.unknown})`;
  }
  const finding = deniedInSegments(patterns, analysis.segments)?.finding;
  if (finding === undefined) return undefined;
  return 'denied' in finding
    ? `bash "${finding.denied}"`
    : `bash "${finding.rule ?? patterns[0]}" (${finding.unknown})`;
}

const expressions = new Map<string, PathMatcher>();
function pathExpression(glob: string): PathMatcher {
  let expression = expressions.get(glob);
  if (!expression) {
    // `infra/`, `infra` and `infra/**` all mean the folder and everything in it (`rm -rf infra`
    // removes what is under it).
    let normalized = path.posix.normalize(glob.replace(/\\/g, '/')).replace(/^\.\//, '');
    const under = normalized.endsWith('/**');
    if (under) normalized = normalized.slice(0, -3);
    const folder = under || normalized.endsWith('/') || !/[*?[{]/.test(normalized);
    const written = globRegExp(normalized.replace(/\/+$/, ''));
    // A case-insensitive or normalising disk (macOS, Windows) writes `INFRA/x` into `infra/`:
    // the rule is matched as written and with case and Unicode form folded (the safe side).
    const folded = globRegExp(fold(normalized.replace(/\/+$/, '')));
    const matcher: PathMatcher = { test: (relative) => written.test(relative) || folded.test(fold(relative)) };
    // A folder rule: the path or any folder it is in matches.
    expression = folder ? { test: (relative) => inMatchedFolder(matcher, relative) } : matcher;
    if (expressions.size > 1_000) expressions.clear();
    expressions.set(glob, expression);
  }
  return expression;
}

const fold = (text: string) => text.normalize('NFC').toLowerCase();

function inMatchedFolder(matcher: PathMatcher, relative: string): boolean {
  for (let end = relative.indexOf('/'); end >= 0; end = relative.indexOf('/', end + 1))
    if (matcher.test(relative.slice(0, end))) return true;
  return matcher.test(relative);
}

/**
 * The call's paths relative to the workspace, normalised. A command's words that look like
 * paths count too (`rm -rf infra/prod`): naming a guarded folder is enough to ask.
 */
function relativePaths(call: ApproverCall, root: string | undefined): string[] {
  const candidates = [...(call.paths ?? [])];
  const named = pathOfInput(call.input);
  if (named !== undefined) candidates.push(named);
  if (call.command !== undefined) {
    const analysis = analyseCommand(call.command);
    if (analysis.ok) {
      for (const segment of analysis.segments) for (const word of segment.args) candidates.push(...pathsInWord(word));
      for (const redirection of analysis.redirections) candidates.push(redirection.target);
    }
  }
  const out = new Set<string>();
  for (const candidate of candidates) {
    const relative = workspaceRelative(candidate, root);
    if (relative !== undefined) out.add(relative);
  }
  return [...out];
}

/**
 * The paths a command word may name: itself, and a value attached to an option or a key
 * (`--target-directory=infra`, `of=infra/x`, `-Cinfra`); an option alone names none.
 */
function pathsInWord(word: string): string[] {
  const paths = word.startsWith('-') ? [] : [word];
  const equals = word.indexOf('=');
  if (equals > 0) paths.push(word.slice(equals + 1));
  if (/^-[^-]./.test(word)) paths.push(word.slice(2));
  return paths;
}

function workspaceRelative(candidate: string, root: string | undefined): string | undefined {
  if (!candidate || candidate.includes('\0')) return undefined;
  const slashed = candidate.replace(/\\/g, '/');
  let relative = slashed;
  if (path.posix.isAbsolute(slashed)) {
    if (!root) return undefined;
    relative = path.posix.relative(root.replace(/\\/g, '/'), slashed);
  }
  relative = path.posix.normalize(relative).replace(/^(\.\/)+/, '');
  if (relative === '..' || relative.startsWith('../') || path.posix.isAbsolute(relative)) return undefined;
  return relative.replace(/\/+$/, '') || '.';
}

/**
 * The approvals section of two layers together: approver rules add up (neither removes the
 * other's), `block` wins over `wait`. The other keys are left to the caller's merge.
 */
export function mergeApproverKeys(lower: Approvals | undefined, upper: Approvals | undefined): Partial<Approvals> {
  const below = lower?.approvers ?? [];
  const next = below.length ? Math.max(...below.map(tierOf)) + 1 : 0;
  const above = (upper?.approvers ?? []).map((rule): TieredRule => ({ ...rule, [TIER]: next + tierOf(rule) }));
  const approvers = [...below, ...above];
  const unreachable =
    lower?.on_unreachable === 'block' || upper?.on_unreachable === 'block'
      ? 'block'
      : (lower?.on_unreachable ?? upper?.on_unreachable);
  return {
    ...(approvers.length ? { approvers } : {}),
    ...(unreachable ? { on_unreachable: unreachable } : {}),
  };
}

/** Applies mergeApproverKeys to a merged approvals section in place (keys it leaves out are removed). */
export function withMergedApprovers(
  merged: Approvals,
  lower: Approvals | undefined,
  upper: Approvals | undefined,
): Approvals {
  delete merged.approvers;
  delete merged.on_unreachable;
  return Object.assign(merged, mergeApproverKeys(lower, upper));
}

/** Every name the rules give (for checking them against the team's member directory). */
export function namedApprovers(rules: readonly ApproverRule[] | undefined): string[] {
  return [...new Set((rules ?? []).flatMap((rule) => rule.by))];
}
