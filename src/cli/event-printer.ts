/**
 * Agent events as terminal output: the answer's text as it streams, each tool call as one
 * compact line (name and what it works on) followed by its result status, and short notes for
 * the rest (compaction, plan mode, jobs, tasks, usage). Errors are written as errors.
 */
import { budgetMessage } from '../core/policy/budget';
import { modelLabel } from '../core/llm/provider-presets';
import type { AgentEvent } from '../core/events/events';
import { describeCacheBreak, describeCostWarning } from '../core/events/cost-notes';
import { describeToolOutcome, nextToolOutcome, toolCallTarget, type ToolOutcome } from '../core/events/tool-outcome';
import { AUTO_APPROVED_REASON } from '../core/policy/auto-approval';
import { describeTeamApproval } from '../core/team/team-approval-words';
import type { Output } from './output';

const LEAD = 'lead';
const MAX_SUMMARY = 100;
const UNREACHABLE_HINT =
  ' Is the server running? Check --base-url (or OPENAGENT_BASE_URL), or choose another with /model.';
const OVERFLOW_HINT =
  ' Start over with /new, or give the model a larger window (llama.cpp: -c; Ollama: num_ctx) and set it with --context-window.';

export class EventPrinter {
  /** Decisions on calls whose results are still to come (by agent and call id). */
  private readonly decided = new Map<string, ToolOutcome>();

  constructor(private readonly output: Output) {}

  print(event: AgentEvent): void {
    const { style } = this.output;
    // Sub-agents and teammates: their tool calls and ends, indented; not their text.
    const indent = event.agentId === LEAD ? '' : '  ';
    switch (event.type) {
      case 'text_delta':
        if (event.agentId === LEAD) this.output.write(event.text);
        return;
      case 'user_message':
        // From the prompt on (the server may be slow to say its window or count the request),
        // until the model answers, the user sees that something is under way.
        if (event.agentId === LEAD) this.output.startWaiting('working');
        return;
      case 'model_call':
        if (event.agentId !== LEAD) return;
        if (event.state === 'waiting')
          this.output.startWaiting(`waiting for ${modelLabel(event.provider, event.model)}`);
        else if (event.state === 'stalled')
          this.output.startWaiting(
            (seconds) => `${modelLabel(event.provider, event.model)} has sent nothing for ${seconds} s`,
            Date.now,
            event.time - (event.silentMs ?? 0),
          );
        else this.output.stopWaiting();
        return;
      case 'tool_call':
        this.output.line(`${indent}${style.cyan('●')} ${style.bold(event.toolName)} ${toolCallSummary(event.input)}`);
        return;
      case 'tool_approval_result':
        // Approve-all said yes without asking: the user should still see that it did.
        if (event.approved && event.reason === AUTO_APPROVED_REASON)
          this.output.line(style.dim(`${indent}  (auto-approved)`));
        this.decided.set(callKey(event), nextToolOutcome({ state: 'running' }, event));
        return;
      case 'team_approval':
        this.output.line(style.yellow(`${indent}  (${describeTeamApproval(event)})`));
        return;
      case 'tool_result': {
        const decided = this.decided.get(callKey(event)) ?? { state: 'running' };
        this.decided.delete(callKey(event));
        this.output.line(`${indent}  ${outcomeLine(nextToolOutcome(decided, event), style)}`);
        return;
      }
      case 'subagent_start':
        this.output.line(`${style.cyan('●')} sub-agent (${event.kind}): ${event.description}`);
        return;
      case 'subagent_end':
        this.output.line(`  ${style.green('✓')} sub-agent done`);
        return;
      case 'task_update':
        this.output.line(style.dim(`${indent}[task #${event.taskId} ${event.status}] ${event.subject}`));
        return;
      case 'background_result':
        this.output.line(
          style.dim(`[background job ${event.jobId} ended, exit code ${event.exitCode ?? '?'}] ${event.command}`),
        );
        return;
      case 'teammate_status':
        this.output.line(style.dim(`[teammate ${event.name}: ${event.status}]`));
        return;
      case 'compact':
        if (event.kind !== 'micro')
          this.output.line(
            style.dim(
              `(conversation compacted: ~${formatNumber(event.tokensBefore)} → ~${formatNumber(event.tokensAfter)} tokens` +
                `${event.transcript ? `; full history saved to ${event.transcript}` : ''})`,
            ),
          );
        return;
      case 'plan_mode':
        this.output.line(
          style.yellow(
            event.active
              ? '(plan mode on: the agent reads and plans, and changes nothing until you approve its plan)'
              : event.reason === 'plan_approved'
                ? '(plan approved: plan mode off)'
                : '(plan mode off)',
          ),
        );
        return;
      case 'cache_break':
        this.output.line(style.yellow(`(${describeCacheBreak(event)})`));
        return;
      case 'cost_warning':
        this.output.line(style.yellow(`(${describeCostWarning(event)})`));
        // Said before the call is sent: the wait for its answer goes on.
        if (event.agentId === LEAD) this.output.startWaiting(`waiting for ${modelLabel(event.provider, event.model)}`);
        return;
      case 'budget':
        // A block also ends the run with an error that says which limit to raise.
        this.output.line(style.yellow(`(${budgetMessage(event)})`));
        return;
      case 'usage':
        // A run that got no answer (the server was unreachable) has nothing worth counting here.
        if (event.scope === 'turn' && event.agentId === LEAD && event.usage.outputTokens > 0)
          this.output.line(style.dim(`(${usageLine(event)})`));
        return;
      case 'interrupted':
        if (event.agentId === LEAD) this.output.line(style.yellow(event.feedback ? '(redirected)' : '(interrupted)'));
        return;
      case 'error':
        this.output.error(
          `${event.agentId === LEAD ? '' : `${event.agentId}: `}error: ${event.message}${errorHint(event.kind)}`,
        );
        return;
      case 'done':
        if (event.agentId !== LEAD) return;
        this.output.stopWaiting();
        this.output.newline();
        if (event.stopReason !== 'end_turn' && event.stopReason !== 'tool_use')
          this.output.line(style.yellow(`(stopped: ${event.stopReason.replace(/_/g, ' ')})`));
        return;
      default:
        // user_message (the user typed it), approval requests (the gate asks), llm traces, files_changed…
        return;
    }
  }
}

/** What a tool call works on, in one short line: its command, path, pattern… (control characters escaped). */
export function toolCallSummary(input: unknown): string {
  return toolCallTarget(input, MAX_SUMMARY);
}

/** How a call ended, in one line: ✓ what it produced, or ✗ why not (who refused it, why it failed). */
function outcomeLine(outcome: ToolOutcome, style: Output['style']): string {
  const { label, detail } = describeToolOutcome(outcome);
  switch (outcome.state) {
    case 'ran':
      return `${style.green('✓')} ${outcome.summary}`;
    case 'failed':
      return style.red(`✗ ${outcome.reason}`);
    case 'denied':
      return style.yellow(
        `✗ denied${outcome.by === 'timeout' ? ' (no answer in time)' : ''}${detail ? `: ${detail}` : ''}`,
      );
    default:
      return style.yellow(`✗ ${label.toLowerCase()}${detail ? `: ${detail}` : ''}`);
  }
}

function callKey(event: { agentId: string; toolCallId: string }): string {
  return `${event.agentId}\u0000${event.toolCallId}`;
}

/** What the user can do about an error, in the CLI's terms. */
function errorHint(kind: string): string {
  if (kind === 'connection') return UNREACHABLE_HINT;
  if (kind === 'context_overflow') return OVERFLOW_HINT;
  if (kind === 'authentication')
    return ' Check the API key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAGENT_API_KEY).';
  return '';
}

function usageLine(event: Extract<AgentEvent, { type: 'usage' }>): string {
  const { inputTokens, outputTokens, cacheReadTokens } = event.usage;
  // Not `reported`: the server gave no usage (tokens estimated) or the model has no known price.
  const cost = event.costUsd > 0 ? `, ${event.reported ? '' : '~'}$${event.costUsd.toFixed(4)}` : '';
  // Prompt-cache hits are input too: without them a 3,600-token prompt reads "73 tokens in".
  const cached = cacheReadTokens > 0 ? ` (+${formatNumber(cacheReadTokens)} cached)` : '';
  return `${formatNumber(inputTokens)} tokens in${cached}, ${formatNumber(outputTokens)} out${cost}`;
}

export function formatNumber(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
