/**
 * How each piece of the developer panel is drawn from the model: a tool block, a trace pair,
 * an event row, the usage table, the sub-agent and teammate cards and the task board.
 */
import type { AgentEvent } from '../../src/protocol/events';
import type { McpServerStatusMessage } from '../../src/protocol/messages';
import { badge, el, emptyNote, pre } from './dom';
import { formatCost, formatDuration, formatJson, formatTime, formatTokens, toolTarget } from './panel-format';
import { describeEvent } from './event-inspector';
import { describeContextParts, describeContextTotal } from '../../src/protocol/events';
import {
  TASK_COLUMNS,
  type ModelCallRow,
  type PanelModel,
  type ToolBlock,
  type TracePair,
  type UsageFigures,
} from './panel-model';

const STATE_LABELS: Record<ToolBlock['state'], string> = {
  running: 'running',
  awaiting_approval: 'awaiting approval',
  denied: 'denied',
  succeeded: 'succeeded',
  failed: 'error',
};

const SOURCE_LABELS: Record<NonNullable<ToolBlock['approval']>['source'], string> = {
  user: 'by the user',
  hook: 'by a hook',
  session_rule: 'by a session rule',
  policy: 'by policy',
  timeout: 'after no answer',
  no_gate: 'with no one to ask',
  read_only: 'as read-only',
  reviewer: 'by the reviewer program',
};

export function approvalText(block: ToolBlock): string {
  if (block.approval) {
    const verdict = block.approval.approved ? 'Approved' : 'Denied';
    const reason = block.approval.reason ? ` — ${block.approval.reason}` : '';
    return `${verdict} ${SOURCE_LABELS[block.approval.source]}${reason}`;
  }
  if (block.approvalRequest) return `Waiting for approval: ${block.approvalRequest.summary}`;
  return 'Not asked (read-only or allowed)';
}

export function toolSummary(block: ToolBlock): Node[] {
  const target = toolTarget(block.input);
  return [
    el('span', 'tool-name', block.toolName),
    ...(target ? [el('span', 'tool-target', target)] : []),
    badge(STATE_LABELS[block.state], `state-${block.state}`),
    ...(block.approval
      ? [badge(block.approval.approved ? `approved (${block.approval.source})` : `denied (${block.approval.source})`)]
      : []),
    ...(block.result ? [el('span', 'muted', formatDuration(block.result.durationMs))] : []),
    ...(block.agentId === 'lead' ? [] : [badge(block.agentId, 'agent')]),
    el('span', 'muted time', formatTime(block.time)),
  ];
}

export function toolBody(block: ToolBlock): Node[] {
  return [
    el('h3', undefined, 'Input'),
    pre('json tool-input', formatJson(block.input)),
    el('h3', undefined, 'Approval'),
    el('p', 'tool-approval', approvalText(block)),
    el('h3', undefined, block.result?.isError ? 'Error' : 'Result'),
    block.result
      ? pre(`tool-output${block.result.isError ? ' is-error' : ''}`, block.result.output)
      : emptyNote(block.state === 'denied' ? 'Not run.' : 'No result yet.'),
  ];
}

export function traceSummary(pair: TracePair): Node[] {
  const error =
    pair.response && typeof pair.response.payload === 'object' && pair.response.payload !== null
      ? (pair.response.payload as { error?: unknown }).error
      : undefined;
  return [
    el('span', 'trace-index', `#${pair.index}`),
    el('span', 'tool-name', `${pair.provider} · ${pair.model}`),
    pair.response
      ? badge(error === undefined ? 'response' : 'failed', error === undefined ? 'state-succeeded' : 'state-failed')
      : badge('waiting', 'state-running'),
    ...(pair.response ? [el('span', 'muted', formatDuration(pair.response.durationMs))] : []),
    ...(pair.agentId === 'lead' ? [] : [badge(pair.agentId, 'agent')]),
    el('span', 'muted', pair.requestId),
    ...(pair.request ? [el('span', 'muted time', formatTime(pair.request.time))] : []),
  ];
}

export function traceBody(pair: TracePair): Node[] {
  return [
    el('h3', undefined, 'Request'),
    pre('json trace-request', formatJson(pair.request?.payload)),
    el('h3', undefined, 'Response'),
    pair.response ? pre('json trace-response', formatJson(pair.response.payload)) : emptyNote('Still streaming.'),
  ];
}

export function eventSummary(event: AgentEvent): Node[] {
  return [
    el('span', 'muted time', formatTime(event.time)),
    el('span', 'muted event-seq', `#${event.seq}`),
    el('span', `event-type type-${event.type}`, event.type),
    ...(event.agentId === 'lead' ? [] : [badge(event.agentId, 'agent')]),
    el('span', 'event-text', describeEvent(event)),
  ];
}

export function eventBody(event: AgentEvent): Node[] {
  return [pre('json event-json', formatJson(event))];
}

function figureCells(figures: UsageFigures): HTMLTableCellElement[] {
  return [
    formatTokens(figures.inputTokens),
    formatTokens(figures.outputTokens),
    formatTokens(figures.cacheReadTokens),
    formatTokens(figures.cacheWriteTokens),
    formatCost(figures.costUsd, figures.reported),
  ].map((text) => el('td', 'number', text));
}

/** The columns figureCells fills. */
const FIGURE_TITLES = ['Input', 'Output', 'Cache read', 'Cache write', 'Cost'];

function headerRow(titles: readonly string[]): HTMLTableRowElement {
  return el('tr', undefined, ...titles.map((title) => el('th', undefined, title)));
}

/** Token usage per turn and in total. */
export function renderUsage(model: PanelModel): Node[] {
  if (model.usageRows.length === 0) return [emptyNote('No model calls yet.')];
  const head = headerRow(['Turn', 'Agent', 'Model', 'Calls', ...FIGURE_TITLES]);
  const body = el('tbody');
  for (const row of model.usageRows) {
    body.append(
      el(
        'tr',
        row.complete ? undefined : 'running',
        el('td', undefined, row.complete ? String(row.turn) : `${row.turn} (running)`),
        el('td', undefined, row.agentId),
        el('td', undefined, row.model),
        el('td', 'number', String(row.calls)),
        ...figureCells(row),
      ),
    );
  }
  const total = el(
    'tr',
    'total',
    el('td', undefined, 'Total'),
    el('td'),
    el('td'),
    el('td', 'number', String(model.total.calls)),
    ...figureCells(model.total),
  );
  const notes = model.total.reported
    ? []
    : [emptyNote('~ marks an estimate: the server reported no usage, or the model has no known price.')];
  return [
    el('table', 'usage-table', el('thead', undefined, head), body, el('tfoot', undefined, total)),
    ...notes,
    el('h3', 'calls-title', 'Model calls'),
    renderCalls(model),
  ];
}

/** Every model call with the model that served it and the kind of work it did. */
function renderCalls(model: PanelModel): HTMLTableElement {
  const head = headerRow(['#', 'Agent', 'Work', 'Model', ...FIGURE_TITLES, 'Time', 'Context']);
  const body = el('tbody');
  for (const call of model.calls) {
    body.append(
      el(
        'tr',
        'model-call',
        el('td', 'number', String(call.index)),
        el('td', undefined, call.agentId),
        el('td', 'call-work', call.work ?? ''),
        el('td', 'call-model', call.provider ? `${call.provider}/${call.model}` : call.model),
        ...figureCells(call),
        el('td', 'number', call.durationMs === undefined ? '' : formatDuration(call.durationMs)),
        contextCell(call),
      ),
    );
  }
  return el('table', 'usage-table calls-table', el('thead', undefined, head), body);
}

/** Where a call's input went, of the model's window: the same parts as the chat's meter. */
function contextCell(call: ModelCallRow): HTMLTableCellElement {
  const context = call.context;
  if (!context) return el('td', 'call-context');
  return el(
    'td',
    'call-context',
    el('div', 'context-total', describeContextTotal(context)),
    el('div', 'context-parts', describeContextParts(context)),
  );
}

/** One line for the header: the conversation's total so far. */
export function usageLine(total: UsageFigures): string {
  if (total.calls === 0) return 'No model calls yet';
  return [
    `${formatTokens(total.inputTokens)} in`,
    `${formatTokens(total.outputTokens)} out`,
    `${formatTokens(total.cacheReadTokens)} cache read`,
    `${formatTokens(total.cacheWriteTokens)} cache write`,
    formatCost(total.costUsd, total.reported),
    `${total.calls} call${total.calls === 1 ? '' : 's'}`,
  ].join(' · ');
}

/** Sub-agent cards, teammate cards and the task board. */
export function renderAgents(model: PanelModel): Node[] {
  const subagents = [...model.subagents.values()].map((card) =>
    el(
      'article',
      `card subagent ${card.end ? 'is-done' : 'is-running'}`,
      el('header', undefined, el('strong', undefined, card.kind), badge(card.end ? 'done' : 'running')),
      el('p', undefined, card.description),
      el('p', 'muted', `${card.subagentId} · started by ${card.parentAgentId} at ${formatTime(card.startedAt)}`),
      ...(card.end
        ? [
            el('p', 'card-summary', card.end.summary),
            el(
              'p',
              'muted',
              `${formatTokens(card.end.usage.inputTokens)} in · ${formatTokens(card.end.usage.outputTokens)} out · ` +
                `${formatTokens(card.end.usage.cacheReadTokens)} cache read · ${formatTokens(card.end.usage.cacheWriteTokens)} cache write · ` +
                formatCost(card.end.costUsd),
            ),
          ]
        : []),
    ),
  );
  const teammates = [...model.teammates.values()].map((card) =>
    el(
      'article',
      `card teammate status-${card.status}`,
      el('header', undefined, el('strong', undefined, card.name), badge(card.status, `status-${card.status}`)),
      el('p', 'muted', `since ${formatTime(card.time)}`),
    ),
  );
  const board = model.taskBoard;
  const columns = TASK_COLUMNS.map((status) =>
    el(
      'section',
      `task-column column-${status}`,
      el('h3', undefined, `${status.replace('_', ' ')} (${board[status].length})`),
      ...board[status].map((task) =>
        el(
          'article',
          'card task',
          el('strong', undefined, task.subject),
          el('p', 'muted', `${task.taskId}${task.owner ? ` · ${task.owner}` : ''}`),
        ),
      ),
    ),
  );
  return [
    el('h2', undefined, 'Sub-agents'),
    subagents.length ? el('div', 'card-grid', ...subagents) : emptyNote('No sub-agents in this conversation.'),
    el('h2', undefined, 'Teammates'),
    teammates.length ? el('div', 'card-grid', ...teammates) : emptyNote('No teammates in this conversation.'),
    el('h2', undefined, 'Task board'),
    model.tasks.size ? el('div', 'task-board', ...columns) : emptyNote('No tasks in this conversation.'),
  ];
}

/** The header line about MCP servers: each one's state, tool count or error. */
export function renderMcpStatus(started: boolean, servers: McpServerStatusMessage[]): Node[] {
  if (!started) return [document.createTextNode('MCP: not started yet (servers start with the first conversation)')];
  if (servers.length === 0) return [document.createTextNode('MCP: no servers configured')];
  const nodes: Node[] = [document.createTextNode('MCP: ')];
  servers.forEach((server, index) => {
    if (index > 0) nodes.push(document.createTextNode(' · '));
    const detail =
      server.state === 'connected'
        ? `${server.toolCount} tool${server.toolCount === 1 ? '' : 's'}`
        : server.state === 'error'
          ? (server.error ?? 'error')
          : server.state;
    const item = el('span', `mcp-server mcp-${server.state}`, el('strong', undefined, server.name), ` ${server.state}`);
    item.title = `${server.name} (${server.transport}): ${detail}`;
    if (server.state !== 'connecting') item.append(` (${detail})`);
    item.dataset.server = server.name;
    item.dataset.state = server.state;
    nodes.push(item);
  });
  return nodes;
}
