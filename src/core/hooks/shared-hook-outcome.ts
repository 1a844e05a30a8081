/**
 * What a hook process said, read the way the shared format defines it:
 * - exit 2: blocks (the call, the prompt; makes the agent go on, for Stop); stderr is the reason;
 * - exit 0: stdout may be JSON — `continue: false` (with `stopReason`) blocks, `decision:
 *   "block"` (with `reason`) blocks, `hookSpecificOutput.permissionDecision` "deny" blocks,
 *   "ask" asks, "allow" only means the hook does not object (our assessment still decides);
 *   `updatedInput` rewrites a tool call, `additionalContext` adds to the context. Plain text on
 *   stdout is context for UserPromptSubmit and SessionStart, and ignored elsewhere;
 * - any other exit, a timeout, a failure to start: reported to the user, and nothing blocks.
 */
import { visibleText } from '../text/visible-text';
import type { SharedHookEvent } from './shared-hook-config';

/** One hook process as it ended (the runner caps what it keeps). */
export interface HookProcessResult {
  /** undefined: killed (timeout, Stop) or never started. */
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start (the sandbox refused, no shell…). */
  failure?: string;
}

export interface HookVerdict {
  block?: string;
  ask?: string;
  updatedInput?: Record<string, unknown>;
  context?: string;
  /** For the user: the hook failed without blocking anything. */
  notice?: string;
}

const MAX_REASON_CHARS = 4_000;
const MAX_CONTEXT_CHARS = 10_000;

export function readOutcome(event: SharedHookEvent, result: HookProcessResult, timeoutSeconds: number): HookVerdict {
  if (result.failure !== undefined) return { notice: `could not run: ${result.failure}` };
  if (result.timedOut) return { notice: `did not finish within ${timeoutSeconds} s and was stopped` };
  if (result.exitCode === 2)
    return { block: cut(result.stderr.trim(), MAX_REASON_CHARS) || 'a hook exited with code 2' };
  if (result.exitCode !== 0) {
    const said = cut(result.stderr.trim(), 500);
    return {
      notice: `${result.exitCode === undefined ? 'was killed' : `exited with code ${result.exitCode}`}${said ? `: ${said}` : ''}`,
    };
  }
  const text = result.stdout.trim();
  if (!text.startsWith('{')) return plainText(event, text);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { notice: 'printed output that starts like JSON but is not; it was ignored' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  return fromJson(event, data as Record<string, unknown>);
}

function plainText(event: SharedHookEvent, text: string): HookVerdict {
  if (text && (event === 'UserPromptSubmit' || event === 'SessionStart'))
    return { context: cut(text, MAX_CONTEXT_CHARS) };
  return {};
}

function fromJson(event: SharedHookEvent, data: Record<string, unknown>): HookVerdict {
  const verdict: HookVerdict = {};
  const specific =
    typeof data.hookSpecificOutput === 'object' && data.hookSpecificOutput !== null
      ? (data.hookSpecificOutput as Record<string, unknown>)
      : {};
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  // The Copilot CLI puts the decision at the top level.
  const decision = text(specific.permissionDecision) || text(data.permissionDecision);
  const decisionReason = text(specific.permissionDecisionReason) || text(data.permissionDecisionReason);
  if (data.continue === false) verdict.block = text(data.stopReason) || 'a hook asked to stop';
  else if (data.decision === 'block') verdict.block = text(data.reason) || 'a hook blocked it';
  else if (decision === 'deny') verdict.block = decisionReason || 'a hook denied it';
  else if (decision === 'ask')
    verdict.ask = cut(decisionReason || 'a hook asks you to approve this call', MAX_REASON_CHARS);
  if (verdict.block) verdict.block = cut(verdict.block, MAX_REASON_CHARS);
  const updated = specific.updatedInput ?? data.modifiedArgs;
  if (event === 'PreToolUse' && typeof updated === 'object' && updated !== null && !Array.isArray(updated))
    verdict.updatedInput = updated as Record<string, unknown>;
  const context = text(specific.additionalContext) || text(data.additionalContext);
  if (context) verdict.context = cut(context, MAX_CONTEXT_CHARS);
  return verdict;
}

/**
 * What a hook said, cut to `max` and with every hiding character escaped: its words reach the
 * chat, the terminal and notices, where a `\r` or an ANSI escape must not fake or erase text.
 */
function cut(text: string, max: number): string {
  return visibleText(text.length > max ? `${text.slice(0, max)}…` : text);
}
