/**
 * "Auto-approve" for one conversation (a developer-panel switch): a decorator over the real
 * ApprovalGate. While it is on, tool calls are approved without asking, as a session rule —
 * except calls that touch a protected path (SPEC 4.1: those always ask, whatever else says
 * yes), commands naming such a path or one outside the workspace, and commands too complex to
 * tell what they touch (unparseable asks, as everywhere).
 */
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from './approval';
import { isProtectedPath, pathOfInput } from './protected-paths';
import { analyseCommand } from './shell-command';

/** Tools whose input is a shell command line in `command`. */
const COMMAND_TOOLS = new Set(['bash', 'background_run']);

export const AUTO_APPROVED_REASON = 'Auto-approve is on for this conversation.';

export class AutoApprovalGate implements ApprovalGate {
  /**
   * @param inner the gate that asks the user.
   * @param isOn whether auto-approve is on for a conversation, read at each request.
   */
  constructor(
    private readonly inner: ApprovalGate,
    private readonly isOn: (conversationId: string) => boolean,
  ) {}

  request(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (this.isOn(request.conversationId) && !needsAskingAnyway(request.toolName, request.input)) {
      return Promise.resolve({ approved: true, source: 'session_rule', reason: AUTO_APPROVED_REASON });
    }
    return this.inner.request(request);
  }
}

/** Whether a call must be asked about even with auto-approve on. */
export function needsAskingAnyway(toolName: string, input: unknown): boolean {
  const path = pathOfInput(input);
  if (path !== undefined && isProtectedPath(path)) return true;
  if (!COMMAND_TOOLS.has(toolName)) return false;
  const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
  if (typeof command !== 'string') return true;
  const analysis = analyseCommand(command);
  // Unparseable, or able to show as something else (control or invisible characters): asks.
  if (!analysis.ok || analysis.hidden) return true;
  const words = [
    ...analysis.segments.flatMap((segment) => segment.argv),
    ...analysis.redirections.map((redirection) => redirection.target),
  ];
  // `--env-file=.env` names its path after the `=`.
  return words.some((word) => word.split('=').some((part) => looksLikeProtectedPath(part)));
}

function looksLikeProtectedPath(word: string): boolean {
  // Options are not paths. Absolute paths, `~` and `..` leave the workspace: they ask too.
  if (word === '' || word.startsWith('-')) return false;
  return word.startsWith('~') || isProtectedPath(word);
}
