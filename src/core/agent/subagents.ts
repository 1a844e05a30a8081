/**
 * Sub-agents (SPEC 2.7): the `task` tool runs a child agent loop with a context of its own — a
 * fresh history holding only the parent's instructions for it — and returns the child's final
 * answer as the tool result. Kinds: `explore` and `plan` get the read-only tools, `code` gets
 * every tool; none gets `task` itself, so nesting stops at depth 2. The child's model calls are
 * the parent's usage (same meter, same budget) and it asks for approval like the parent; only
 * subagent_start / subagent_end (with the child's own usage), its usage and traces and its
 * approval questions reach the parent's event stream — its text and tool calls stay out of the
 * parent's history.
 */
import { z } from 'zod';
import type { ModelMessage } from '../llm/llm-client';
import type { AnyTool, ToolOutput } from '../tools/tool';
import { runAgentLoop, type LoopDeps } from './agent-loop';
import type { AgentEventBody } from '../events/events';
import { UsageMeter } from './usage-meter';

export const SUBAGENT_KINDS = ['explore', 'code', 'plan'] as const;
export type SubagentKind = (typeof SUBAGENT_KINDS)[number];

/** Tools a sub-agent never has: no nesting, no acting on the parent's context or plan mode. */
const PARENT_ONLY_TOOLS = new Set(['task', 'compact', 'present_plan']);
/** A sub-agent's answer is cut beyond this in the parent's context. */
export const MAX_SUBAGENT_ANSWER_CHARS = 20_000;
const SUBAGENT_MAX_TURNS = 30;

const BRIEFS: Record<SubagentKind, string> = {
  explore:
    'Your job is to investigate and report. You only have tools that read; change nothing. Search broadly, read ' +
    'what matters, and answer with the facts found: file paths with line numbers, names, how things connect. Be ' +
    'concise: your answer is all the other agent sees.',
  plan:
    'Your job is to design an approach. You only have tools that read; change nothing. Study the code involved, ' +
    'then answer with a concrete, numbered plan: the files to change and how, in order, with the risks and how ' +
    'to verify each step.',
  code:
    'Your job is to make the change described, completely, then verify it (build, tests) as the project does. ' +
    'Answer with what you changed (files, in a sentence each), how you verified it, and anything left undone.',
};

/**
 * Events of the child that go into the parent's stream: its approval questions, so surfaces
 * show that the user is being asked. (Its usage and traces reach the parent through the
 * parent's own meter and model client.)
 */
const FORWARDED: ReadonlySet<AgentEventBody['type']> = new Set([
  'tool_call',
  'tool_approval_request',
  'tool_approval_result',
  'tool_result',
]);

export interface SubagentParent {
  /** The parent's loop dependencies for the run in progress (its meter, tools, approvals). */
  runDeps(): LoopDeps | undefined;
  /** Puts an event in the parent's stream; `agentId` names the sub-agent it comes from. */
  emit(body: AgentEventBody, agentId?: string): void;
  nextSubagentId(): string;
}

export function createSubagentTool(parent: SubagentParent): AnyTool {
  return {
    name: 'task',
    description:
      'Give a self-contained piece of work to a sub-agent with a fresh context; returns its final answer. Kinds: ' +
      '"explore" (reads only: finds where and how something is done), "plan" (reads only: returns a step-by-step ' +
      'plan), "code" (all tools: makes a well-defined change and verifies it). It sees nothing of this ' +
      'conversation, so the prompt must give the goal, relevant paths, constraints and what to report. Keeps large ' +
      'searches and side tasks out of your context.',
    inputSchema: z.object({
      kind: z.enum(SUBAGENT_KINDS),
      description: z
        .string()
        .trim()
        .min(1)
        .max(120)
        .describe('A few words for the user, e.g. "Find the auth middleware".'),
      prompt: z.string().trim().min(1).max(50_000).describe('The complete instructions for the sub-agent.'),
    }),
    // Explore and plan sub-agents only read; a code sub-agent's writing tools ask for approval themselves.
    readOnly: true,
    needsApproval: false,
    summarize: (input: { kind: SubagentKind; description: string }) => `${input.kind} sub-agent: ${input.description}`,
    execute: (input: { kind: SubagentKind; description: string; prompt: string }, context) =>
      runSubagent(parent, input, context.signal),
  };
}

async function runSubagent(
  parent: SubagentParent,
  input: { kind: SubagentKind; description: string; prompt: string },
  signal: AbortSignal,
): Promise<ToolOutput | string> {
  const base = parent.runDeps();
  if (!base) return { output: 'A sub-agent can only run while the conversation is answering.', isError: true };
  const subagentId = parent.nextSubagentId();
  const own = new UsageMeter();
  parent.emit({ type: 'subagent_start', subagentId, kind: input.kind, description: input.description });
  const history: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: input.prompt }] }];
  const readOnly = input.kind !== 'code';
  const deps: LoopDeps = {
    ...base,
    agentId: subagentId,
    system: `${base.system}\n\n# You are a sub-agent (${input.kind})\nAnother agent gave you the task below. ${BRIEFS[input.kind]}`,
    limits: { ...base.limits, maxTurns: Math.min(base.limits.maxTurns, SUBAGENT_MAX_TURNS) },
    isOffered: (tool) => !PARENT_ONLY_TOOLS.has(tool.name) && (!readOnly || tool.readOnly) && base.isOffered(tool),
    inboxes: [],
    takeCompactionRequest: () => undefined,
    emit: (body) => {
      // The child's tool calls and their approvals, under its own id: the developer panel and
      // the audit trail see them; the chat shows the sub-agent as one line.
      if (FORWARDED.has(body.type)) parent.emit(body, subagentId);
    },
    // On the sub-agent model of the model policy. Its calls go through the parent's model
    // clients, which record them (usage event, meter, budgets); the child's own total goes on its card.
    main: base.subagent,
    onUsage: (binding, turn) =>
      own.record(binding.llm.provider, binding.model, turn.usageOrEstimate, turn.usageReported),
  };
  let answer = '';
  let failure: string | undefined;
  try {
    const outcome = await runAgentLoop(history, deps, signal);
    answer = lastAnswer(history);
    if (outcome.stopReason === 'token_budget')
      answer = `${answer}\n\n[The sub-agent stopped at the token budget.]`.trim();
  } catch (error) {
    failure = signal.aborted ? 'Stopped by the user.' : error instanceof Error ? error.message : String(error);
  }
  const summary = failure ? `The sub-agent failed: ${failure}` : answer || 'The sub-agent gave no answer.';
  parent.emit({
    type: 'subagent_end',
    subagentId,
    summary: clip(summary, 2_000),
    usage: own.usage,
    costUsd: own.costUsd,
  });
  if (failure) {
    if (signal.aborted) throw Object.assign(new Error('Stopped by the user.'), { name: 'AbortError' });
    return { output: summary, isError: true };
  }
  return clip(summary, MAX_SUBAGENT_ANSWER_CHARS);
}

/** The text of the child's last answer. */
function lastAnswer(history: readonly ModelMessage[]): string {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role !== 'assistant') continue;
    const text = message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('')
      .trim();
    if (text) return text;
  }
  return '';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… cut at ${max} characters]` : text;
}
