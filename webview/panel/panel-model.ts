/**
 * What the developer panel knows about the conversation it watches, built from the agent's
 * events alone: tool blocks (call, approval, result), sub-agent and teammate cards, the task
 * board, token usage per turn and in total, LLM trace pairs and the raw event list. No DOM, so
 * it is tested in plain Node; panel-view.ts draws it.
 */
import {
  addUsage,
  type AgentEvent,
  type ApprovalDecisionSource,
  type ContextBreakdown,
} from '../../src/protocol/events';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

export type ToolState = 'running' | 'awaiting_approval' | 'denied' | 'succeeded' | 'failed';

export interface ToolBlock {
  /** Agent and tool-call id: a sub-agent's call ids may repeat the lead's. */
  key: string;
  toolCallId: string;
  toolName: string;
  agentId: string;
  time: number;
  /** The input as the model sent it (or the raw text when it was not valid JSON). */
  input: unknown;
  approvalRequest?: { summary: string };
  approval?: { approved: boolean; source: ApprovalDecisionSource; reason?: string };
  result?: { output: string; isError: boolean; durationMs: number };
  state: ToolState;
  /** Goes up at every change, so a view redraws only the blocks that changed. */
  revision: number;
}

export interface UsageFigures {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  calls: number;
  /** False when any figure is an estimate (no usage from the server, or no known price). */
  reported: boolean;
}

export interface UsageRow extends UsageFigures {
  /** 1-based, per agent. */
  turn: number;
  agentId: string;
  model: string;
  /** False while the turn runs: the figures add up its calls so far. */
  complete: boolean;
}

/** One model call: which agent made it, for what work, on which provider and model (SPEC 2.3 model policy). */
export interface ModelCallRow extends UsageFigures {
  index: number;
  agentId: string;
  /** chat, code, subagent, compaction, final_summary; absent in conversations recorded before routing. */
  work?: string;
  provider?: string;
  model: string;
  durationMs?: number;
  time: number;
  /** Where the call's input tokens went, of the model's window (calls recorded before the meter: absent). */
  context?: ContextBreakdown;
}

export interface SubagentCard {
  subagentId: string;
  /** The agent that started it. */
  parentAgentId: string;
  kind: string;
  description: string;
  startedAt: number;
  end?: { summary: string; usage: EventOf<'subagent_end'>['usage']; costUsd: number; time: number };
}

export interface TeammateCard {
  name: string;
  status: EventOf<'teammate_status'>['status'];
  time: number;
}

export type TaskStatus = Exclude<EventOf<'task_update'>['status'], 'deleted'>;
export const TASK_COLUMNS: readonly TaskStatus[] = ['pending', 'in_progress', 'completed'];

export interface TaskCard {
  taskId: string;
  subject: string;
  status: TaskStatus;
  owner?: string;
  time: number;
}

/** One model call as traced: its request and, once it ended, its response. */
export interface TracePair {
  /** 1-based position in the conversation. */
  index: number;
  requestId: string;
  agentId: string;
  provider: string;
  model: string;
  request?: { payload: unknown; time: number };
  response?: { payload: unknown; time: number; durationMs: number };
  revision: number;
}

/** Which parts of the model an `apply` changed, so the view redraws only those. */
export interface PanelChanges {
  tools: boolean;
  agents: boolean;
  usage: boolean;
  traces: boolean;
  status: boolean;
  /** The events just added, in order. */
  events: AgentEvent[];
}

export const EMPTY_FIGURES: UsageFigures = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  calls: 0,
  reported: true,
};

export class PanelModel {
  conversationId: string | undefined;
  running = false;
  readonly events: AgentEvent[] = [];
  /** In the order the calls arrived. */
  readonly tools = new Map<string, ToolBlock>();
  readonly subagents = new Map<string, SubagentCard>();
  readonly teammates = new Map<string, TeammateCard>();
  readonly tasks = new Map<string, TaskCard>();
  readonly usageRows: UsageRow[] = [];
  /** Every model call, in order. */
  readonly calls: ModelCallRow[] = [];
  /** Every model call of every agent. */
  total: UsageFigures = { ...EMPTY_FIGURES };
  readonly traces: TracePair[] = [];
  /** agent id → its turn still adding up calls. */
  private readonly openTurns = new Map<string, UsageRow>();
  /** agent id + request id → its pair still waiting for the response. */
  private readonly openTraces = new Map<string, TracePair>();
  private readonly typeCounts = new Map<AgentEvent['type'], number>();

  /** Event types seen so far with their counts, in the order they first appeared. */
  get eventTypes(): ReadonlyMap<AgentEvent['type'], number> {
    return this.typeCounts;
  }

  /** One tool call's block. */
  tool(toolCallId: string, agentId = 'lead'): ToolBlock | undefined {
    return this.tools.get(toolKey({ agentId, toolCallId }));
  }

  /** The task board: tasks by status, in the order they were created. */
  get taskBoard(): Record<TaskStatus, TaskCard[]> {
    const board: Record<TaskStatus, TaskCard[]> = { pending: [], in_progress: [], completed: [] };
    for (const task of this.tasks.values()) board[task.status].push(task);
    return board;
  }

  apply(events: readonly AgentEvent[]): PanelChanges {
    const changes: PanelChanges = {
      tools: false,
      agents: false,
      usage: false,
      traces: false,
      status: false,
      events: [],
    };
    for (const event of events) {
      this.events.push(event);
      changes.events.push(event);
      this.typeCounts.set(event.type, (this.typeCounts.get(event.type) ?? 0) + 1);
      this.applyOne(event, changes);
    }
    return changes;
  }

  private applyOne(event: AgentEvent, changes: PanelChanges): void {
    if (this.conversationId !== event.conversationId) {
      this.conversationId = event.conversationId;
      changes.status = true;
    }
    switch (event.type) {
      case 'user_message':
        changes.status ||= !this.running;
        this.running = true;
        return;
      case 'done':
      case 'error':
      case 'interrupted':
        // An interruption with feedback goes on: its user_message follows at once.
        changes.status ||= this.running;
        this.running = false;
        return;
      case 'tool_call':
        this.tools.set(toolKey(event), newToolBlock(event, event.toolName, event.input));
        changes.tools = true;
        return;
      case 'tool_approval_request':
        this.updateTool(event, (block) => {
          block.approvalRequest = { summary: event.summary };
          block.state = 'awaiting_approval';
        });
        changes.tools = true;
        return;
      case 'tool_approval_result':
        this.updateTool(event, (block) => {
          block.approval = {
            approved: event.approved,
            source: event.source,
            ...(event.reason === undefined ? {} : { reason: event.reason }),
          };
          block.state = event.approved ? 'running' : 'denied';
        });
        changes.tools = true;
        return;
      case 'tool_result':
        this.updateTool(event, (block) => {
          block.result = { output: event.output, isError: event.isError, durationMs: event.durationMs };
          if (block.state !== 'denied') block.state = event.isError ? 'failed' : 'succeeded';
        });
        changes.tools = true;
        return;
      case 'subagent_start':
        this.subagents.set(event.subagentId, newSubagentCard(event, event.kind, event.description));
        changes.agents = true;
        return;
      case 'subagent_end': {
        const card = this.subagents.get(event.subagentId) ?? newSubagentCard(event, 'sub-agent', '');
        card.end = { summary: event.summary, usage: event.usage, costUsd: event.costUsd, time: event.time };
        this.subagents.set(event.subagentId, card);
        changes.agents = true;
        return;
      }
      case 'teammate_status':
        this.teammates.set(event.name, { name: event.name, status: event.status, time: event.time });
        changes.agents = true;
        return;
      case 'task_update':
        if (event.status === 'deleted') this.tasks.delete(event.taskId);
        else {
          this.tasks.set(event.taskId, {
            taskId: event.taskId,
            subject: event.subject,
            status: event.status,
            ...(event.owner === undefined ? {} : { owner: event.owner }),
            time: event.time,
          });
        }
        changes.agents = true;
        return;
      case 'usage':
        this.applyUsage(event);
        changes.usage = true;
        return;
      case 'llm_request':
      case 'llm_response':
        this.applyTrace(event);
        changes.traces = true;
        return;
      default:
        return;
    }
  }

  /** A tool event whose call was not seen (e.g. arguments that never parsed) still gets a block. */
  private updateTool(
    event: EventOf<'tool_approval_request' | 'tool_approval_result' | 'tool_result'>,
    change: (block: ToolBlock) => void,
  ): void {
    let block = this.tools.get(toolKey(event));
    if (!block) {
      block = newToolBlock(
        event,
        'toolName' in event ? event.toolName : 'unknown tool',
        'input' in event ? event.input : undefined,
      );
      this.tools.set(block.key, block);
    }
    change(block);
    block.revision++;
  }

  private applyUsage(event: EventOf<'usage'>): void {
    const figures = {
      inputTokens: event.usage.inputTokens,
      outputTokens: event.usage.outputTokens,
      cacheReadTokens: event.usage.cacheReadTokens,
      cacheWriteTokens: event.usage.cacheWriteTokens,
      costUsd: event.costUsd,
      reported: event.reported,
    };
    if (event.scope === 'call') {
      this.total = addFigures(this.total, { ...figures, calls: 1 });
      this.calls.push({
        ...figures,
        calls: 1,
        index: this.calls.length + 1,
        agentId: event.agentId,
        model: event.model,
        time: event.time,
        ...(event.work ? { work: event.work } : {}),
        ...(event.provider ? { provider: event.provider } : {}),
        ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
        ...(event.context ? { context: event.context } : {}),
      });
      let row = this.openTurns.get(event.agentId);
      if (!row) {
        row = {
          ...EMPTY_FIGURES,
          turn: this.usageRows.filter((candidate) => candidate.agentId === event.agentId).length + 1,
          agentId: event.agentId,
          model: event.model,
          complete: false,
        };
        this.usageRows.push(row);
        this.openTurns.set(event.agentId, row);
      }
      Object.assign(row, addFigures(row, { ...figures, calls: 1 }));
      // A turn whose calls went to several models (routes for sub-agents, compaction) names them all.
      if (!row.model.split(', ').includes(event.model)) row.model = `${row.model}, ${event.model}`;
      return;
    }
    // The run's own figures are authoritative: they close the turn its calls added up.
    const row = this.openTurns.get(event.agentId);
    this.openTurns.delete(event.agentId);
    const closed = { ...figures, calls: row?.calls ?? 0, model: row?.model ?? event.model, complete: true };
    if (row) Object.assign(row, closed);
    else {
      this.usageRows.push({
        ...closed,
        turn: this.usageRows.filter((candidate) => candidate.agentId === event.agentId).length + 1,
        agentId: event.agentId,
      });
    }
  }

  private applyTrace(event: EventOf<'llm_request' | 'llm_response'>): void {
    // Request ids restart with each model binding, so a response pairs with the newest open request.
    const key = `${event.agentId}\u0000${event.requestId}`;
    let pair = this.openTraces.get(key);
    if (event.type === 'llm_request' || !pair) {
      pair = {
        index: this.traces.length + 1,
        requestId: event.requestId,
        agentId: event.agentId,
        provider: event.provider,
        model: event.model,
        revision: 0,
      };
      this.traces.push(pair);
    }
    if (event.type === 'llm_request') {
      pair.request = { payload: event.payload, time: event.time };
      this.openTraces.set(key, pair);
    } else {
      pair.response = { payload: event.payload, time: event.time, durationMs: event.durationMs };
      this.openTraces.delete(key);
    }
    pair.revision++;
  }
}

function newToolBlock(
  event: { toolCallId: string; agentId: string; time: number },
  toolName: string,
  input: unknown,
): ToolBlock {
  return {
    key: toolKey(event),
    toolCallId: event.toolCallId,
    toolName,
    agentId: event.agentId,
    time: event.time,
    input,
    state: 'running',
    revision: 0,
  };
}

function newSubagentCard(
  event: { subagentId: string; agentId: string; time: number },
  kind: string,
  description: string,
): SubagentCard {
  return { subagentId: event.subagentId, parentAgentId: event.agentId, kind, description, startedAt: event.time };
}

export function addFigures(a: UsageFigures, b: UsageFigures): UsageFigures {
  return {
    ...addUsage(a, b),
    costUsd: a.costUsd + b.costUsd,
    calls: a.calls + b.calls,
    reported: a.reported && b.reported,
  };
}

function toolKey(event: { agentId: string; toolCallId: string }): string {
  return `${event.agentId}\u0000${event.toolCallId}`;
}
