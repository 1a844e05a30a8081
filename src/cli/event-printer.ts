/**
 * Agent events as terminal output: the answer's text as it streams, each tool call as one
 * compact line (name and what it works on) followed by its result status, and short notes for
 * the rest (compaction, plan mode, jobs, tasks, usage). Errors are written as errors.
 */
import { budgetMessage } from '../core/policy/budget';
import { modelLabel } from '../core/llm/provider-presets';
import type { AgentEvent } from '../core/events/events';
import { describeCacheBreak, describeCostWarning } from '../core/events/cost-notes';
import { DENIED_MESSAGE } from '../core/agent/tool-gates';
import { AUTO_APPROVED_REASON } from '../core/policy/auto-approval';
import type { Output } from './output';

const LEAD = 'lead';
/** Input fields that say what a call works on, in the order they are shown. */
const SUMMARY_FIELDS = ['command', 'path', 'pattern', 'query', 'url', 'subject', 'description', 'jobId', 'taskId'];
const MAX_SUMMARY = 100;
const UNREACHABLE_HINT =
  ' Is the server running? Check --base-url (or OPENAGENT_BASE_URL), or choose another with /model.';
const OVERFLOW_HINT =
  ' Start over with /new, or give the model a larger window (llama.cpp: -c; Ollama: num_ctx) and set it with --context-window.';
const MAX_RESULT = 160;

export class EventPrinter {
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
        else this.output.stopWaiting();
        return;
      case 'tool_call':
        this.output.line(`${indent}${style.cyan('●')} ${style.bold(event.toolName)} ${toolCallSummary(event.input)}`);
        return;
      case 'tool_approval_result':
        // Approve-all said yes without asking: the user should still see that it did.
        if (event.approved && event.reason === AUTO_APPROVED_REASON)
          this.output.line(style.dim(`${indent}  (auto-approved)`));
        return;
      case 'tool_result':
        this.output.line(`${indent}  ${resultStatus(event.output, event.isError, style)}`);
        return;
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

/** What a tool call works on, in one short line: its command, path, pattern… */
export function toolCallSummary(input: unknown): string {
  const fields = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  // Searches: what is looked for, then where.
  if (typeof fields.pattern === 'string' && typeof fields.path === 'string')
    return cut(`${fields.pattern} in ${fields.path}`);
  let parts = SUMMARY_FIELDS.map((key) => fields[key]).filter(
    (value): value is string | number => typeof value === 'string' || typeof value === 'number',
  );
  if (parts.length === 0) parts = Object.values(fields).filter((value): value is string => typeof value === 'string');
  return cut(parts.map(String).join(' '));
}

/** The first line, at most MAX_SUMMARY characters. */
function cut(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

function resultStatus(output: string, isError: boolean, style: Output['style']): string {
  if (isError && output.startsWith(DENIED_MESSAGE)) {
    const reason = output.slice(DENIED_MESSAGE.length).replace(/^\s*Reason:\s*/, '');
    return style.yellow(`✗ denied${reason ? `: ${firstLine(reason)}` : ''}`);
  }
  if (isError) return style.red(`✗ ${firstLine(output)}`);
  const lines = output.trimEnd().split('\n');
  const exit = /^Exit code (\d+)\.$/.exec(lines.at(-1) ?? '');
  // A command's output ends with its exit code: that, and how much it printed.
  if (exit) {
    const printed = lines.length === 2 && lines[0] === '(no output)' ? 0 : lines.length - 1;
    return `${style.green('✓')} exit code ${exit[1]} (${printed} line${printed === 1 ? '' : 's'} of output)`;
  }
  if (lines.length <= 1) return `${style.green('✓')} ${firstLine(output) || 'done'}`;
  // Long output (a file, a listing): its size.
  return `${style.green('✓')} ${lines.length} lines`;
}

/** What the user can do about an error, in the CLI's terms. */
function errorHint(kind: string): string {
  if (kind === 'connection') return UNREACHABLE_HINT;
  if (kind === 'context_overflow') return OVERFLOW_HINT;
  if (kind === 'authentication')
    return ' Check the API key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAGENT_API_KEY).';
  return '';
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > MAX_RESULT ? `${line.slice(0, MAX_RESULT - 1)}…` : line;
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
