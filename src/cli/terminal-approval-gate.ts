/**
 * Approvals on the terminal (SPEC 1.3, 4.1): the tool, what it will do (the whole command, the
 * path and a short diff), then `Approve? [y]es / [n]o / [a]lways this session`. "n" may give
 * the agent a reason; "a" approves this call and every later one of the session (the CLI's
 * approve-all switch). A call that must ask every time (a plan, a protected path, a secret:
 * mustAsk) is asked `[y]es / [n]o` only, and approve-all never covers it. One question at a time. Without a terminal
 * there is no one to ask: NoTerminalApprovalGate denies, and says how to allow tool calls.
 */
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../core/policy/approval';
import { mustAsk } from '../core/policy/call-risk';
import type { WorkspaceFiles } from '../core/ports';
import { approvalPreview } from '../core/policy/approval-preview';
import type { LineResult } from './line-reader';
import type { Output } from './output';
import { visibleText } from '../core/text/visible-text';

export const APPROVAL_QUESTION = 'Approve? [y]es / [n]o / [a]lways this session: ';
/** For a call no standing answer may cover (a plan, a protected path, a secret): no "always". */
export const ONCE_QUESTION = 'Approve? [y]es / [n]o: ';

export interface TerminalApprovalDeps {
  output: Output;
  ask(question: string, signal: AbortSignal): Promise<LineResult>;
  workspace(): WorkspaceFiles | undefined;
  /** "a": approve every later call of the session too. */
  approveRest(): void;
}

export class TerminalApprovalGate implements ApprovalGate {
  /** Questions wait for the one on screen (sub-agents may ask at the same time). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: TerminalApprovalDeps) {}

  request(request: ApprovalRequest): Promise<ApprovalDecision> {
    const answer = this.queue.then(() => this.ask(request));
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  private async ask(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (request.signal.aborted) return { approved: false, source: 'user', reason: 'The run was stopped.' };
    const { output } = this.deps;
    const { style } = output;
    const preview = await approvalPreview(request, this.deps.workspace());
    output.line(
      style.yellow(
        `? ${request.toolName} wants to ${lowerFirst(visibleText(request.summary, { keepNewlines: false }))}`,
      ),
    );
    const risk = request.risk;
    if (risk.protectedPath) output.line(style.red('  ! a protected path: it always asks'));
    for (const reason of [...risk.reasons, ...risk.cautions])
      output.line(style.red(`  ! ${visibleText(reason, { keepNewlines: false })}`));
    if (risk.inPerson)
      output.line(style.dim(`  (asked every time: ${visibleText(risk.inPerson, { keepNewlines: false })})`));
    for (const line of preview) output.line(`  ${colorDiffLine(line, style)}`);
    // "a" approves every later call: never offered, nor taken, on a call that must ask each time.
    const always = !mustAsk(risk);
    for (;;) {
      const answer = await this.deps.ask(always ? APPROVAL_QUESTION : ONCE_QUESTION, request.signal);
      if (answer.kind !== 'line')
        return { approved: false, source: 'user', reason: 'The user interrupted instead of answering.' };
      const word = answer.text.trim().toLowerCase();
      if (word === 'y' || word === 'yes') return { approved: true, source: 'user' };
      if ((word === 'a' || word === 'always') && !always) {
        output.line('This one is asked every time: please answer y (yes) or n (no).');
        continue;
      }
      if (word === 'a' || word === 'always') {
        this.deps.approveRest();
        output.line(
          style.dim('(approving every tool call for the rest of this session; risky ones, marked !, still ask)'),
        );
        return {
          approved: true,
          source: 'user',
          reason: 'The user approved this call and every later one of this session.',
        };
      }
      if (word === 'n' || word === 'no') {
        const why = await this.deps.ask('Reason for the agent (optional, Enter to skip): ', request.signal);
        const reason = why.kind === 'line' ? why.text.trim() : '';
        return { approved: false, source: 'user', ...(reason ? { reason } : {}) };
      }
      output.line(
        always ? 'Please answer y (yes), n (no) or a (always this session).' : 'Please answer y (yes) or n (no).',
      );
    }
  }
}

/** One-shot mode without a terminal: nobody can answer, so calls that need approval are denied. */
export class NoTerminalApprovalGate implements ApprovalGate {
  constructor(private readonly output: Output) {}

  async request(request: ApprovalRequest): Promise<ApprovalDecision> {
    // --yes does not answer for what must be put to a person: say so rather than suggest it.
    const how = mustAsk(request.risk)
      ? 'It is asked every time, even with --yes: run in a terminal to be asked.'
      : 'Run with --yes to approve tool calls, or in a terminal to be asked.';
    this.output.error(
      `openagent: denied ${request.toolName} (${visibleText(request.summary, { keepNewlines: false })}): stdin is not a terminal, so nobody can approve it. ${how}`,
    );
    return {
      approved: false,
      source: 'no_gate',
      reason: 'Nobody is at a terminal to approve it (openagent runs non-interactively without --yes).',
    };
  }
}

function colorDiffLine(line: string, style: Output['style']): string {
  if (line.startsWith('+ ')) return style.green(line);
  if (line.startsWith('- ')) return style.red(line);
  return line;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
