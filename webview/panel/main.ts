/** The developer panel webview: wires the DOM to the host protocol. */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { AgentEventType } from '../../src/core/agent/events';
import { hostToPanelSchema, type PanelToggle, type PanelToggles } from '../../src/protocol/messages';
import { postPanelMessage, webviewState } from '../shared/vscode-api';
import { renderMcpStatus } from './panel-sections';
import { PanelView } from './panel-view';

const TABS = ['tools', 'agents', 'usage', 'events', 'traces'] as const;
const TAB_TITLES: Record<(typeof TABS)[number], string> = {
  tools: 'Tools',
  agents: 'Agents & Tasks',
  usage: 'Usage',
  events: 'Events',
  traces: 'LLM Traces',
};

const TOOLS_BAR = `
  <div class="section-bar">
    <vscode-button secondary id="tools-expand">Expand All</vscode-button>
    <vscode-button secondary id="tools-collapse">Collapse All</vscode-button>
  </div>`;
const EVENTS_BAR = `
  <div class="section-bar filter-bar">
    <vscode-single-select id="event-type" aria-label="Event type">
      <vscode-option value="">All types</vscode-option>
    </vscode-single-select>
    <vscode-textfield id="event-text" placeholder="Filter by text" aria-label="Filter events by text"></vscode-textfield>
    <span id="event-count" class="muted"></span>
  </div>`;

const root = document.getElementById('openagent-panel')!;
root.innerHTML = `
  <header class="panel-header">
    <div class="header-row">
      <h1>Developer Panel</h1>
      <span id="run-status" class="status-pill"></span>
      <span id="conversation-id" class="muted"></span>
    </div>
    <p id="usage-summary" class="usage-summary" aria-label="Total token usage"></p>
    <p id="mcp-status" class="mcp-status" aria-label="MCP servers"></p>
    <div class="toggles" role="group" aria-label="Switches for this conversation">
      <vscode-checkbox toggle id="toggle-auto_approve" title="Approve this conversation's tool calls without asking. Protected paths still ask.">Auto-approve tool calls</vscode-checkbox>
      <vscode-checkbox toggle id="toggle-plan_mode" title="Only reading tools until you approve the agent's plan.">Plan mode</vscode-checkbox>
      <vscode-checkbox toggle id="toggle-tracing" title="Record every model request and response below (secrets redacted).">LLM tracing</vscode-checkbox>
      <vscode-checkbox toggle id="toggle-teams" title="Let the agent start teammates that work beside it on the task board.">Teams</vscode-checkbox>
    </div>
  </header>
  <vscode-tabs id="tabs" panel>
    ${TABS.map(
      (tab) => `
      <vscode-tab-header slot="header" data-tab="${tab}">${TAB_TITLES[tab]}
        <vscode-badge variant="counter" id="count-${tab}">0</vscode-badge>
      </vscode-tab-header>
      <vscode-tab-panel data-tab="${tab}">
        ${tab === 'tools' ? TOOLS_BAR : tab === 'events' ? EVENTS_BAR : ''}
        <div id="${tab}" class="section section-${tab}"></div>
      </vscode-tab-panel>`,
    ).join('')}
  </vscode-tabs>`;

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

type ValueElement = HTMLElement & { value: string };
type Toggle = HTMLElement & { checked: boolean };

const mcpStatus = byId('mcp-status');
mcpStatus.textContent = 'MCP: not started yet';

const view = new PanelView({
  status: byId('run-status'),
  conversation: byId('conversation-id'),
  usageSummary: byId('usage-summary'),
  tools: byId('tools'),
  agents: byId('agents'),
  usage: byId('usage'),
  events: byId('events'),
  eventCount: byId('event-count'),
  traces: byId('traces'),
  typeSelect: byId('event-type'),
  counters: {
    tools: byId('count-tools'),
    agents: byId('count-agents'),
    usage: byId('count-usage'),
    events: byId('count-events'),
    traces: byId('count-traces'),
  },
});

// What survives the panel being hidden and shown again: the open tab and the filter.
interface SavedState {
  tab: number;
  type: string;
  text: string;
}
const saved = readSavedState();
const tabs = byId<HTMLElement & { selectedIndex: number }>('tabs');
const typeSelect = byId<ValueElement>('event-type');
const textFilter = byId<ValueElement>('event-text');
tabs.selectedIndex = saved.tab;
textFilter.value = saved.text;
typeSelect.value = saved.type;
let typeFilter = saved.type;
applyFilter();

function readSavedState(): SavedState {
  const state = webviewState.load() as Partial<SavedState> | undefined;
  return {
    tab: typeof state?.tab === 'number' && state.tab >= 0 && state.tab < TABS.length ? state.tab : 0,
    type: typeof state?.type === 'string' ? state.type : '',
    text: typeof state?.text === 'string' ? state.text : '',
  };
}

function applyFilter(): void {
  view.setFilter({ type: (typeFilter || undefined) as AgentEventType | undefined, text: textFilter.value });
  webviewState.save({ tab: tabs.selectedIndex, type: typeFilter, text: textFilter.value } satisfies SavedState);
}

typeSelect.addEventListener('change', () => {
  typeFilter = typeSelect.value;
  applyFilter();
});
textFilter.addEventListener('input', applyFilter);
tabs.addEventListener('vsc-tabs-select', () => applyFilter());
byId('tools-expand').addEventListener('click', () => view.setToolsOpen(true));
byId('tools-collapse').addEventListener('click', () => view.setToolsOpen(false));

const toggles = {
  auto_approve: byId<Toggle>('toggle-auto_approve'),
  plan_mode: byId<Toggle>('toggle-plan_mode'),
  tracing: byId<Toggle>('toggle-tracing'),
  teams: byId<Toggle>('toggle-teams'),
} satisfies Record<PanelToggle, Toggle>;
for (const [name, toggle] of Object.entries(toggles) as Array<[PanelToggle, Toggle]>) {
  // The host answers with the switches as they now are; until then the click shows.
  toggle.addEventListener('change', () => postPanelMessage({ type: 'toggle_set', toggle: name, on: toggle.checked }));
}

function showToggles(state: PanelToggles): void {
  toggles.auto_approve.checked = state.autoApprove;
  toggles.plan_mode.checked = state.planMode;
  toggles.tracing.checked = state.tracing;
  toggles.teams.checked = state.teams;
  view.setTracing(state.tracing);
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = hostToPanelSchema.safeParse(event.data);
  if (!parsed.success) return;
  const message = parsed.data;
  switch (message.type) {
    case 'agent_events':
      view.apply(message.events);
      break;
    case 'panel_reset':
      view.reset();
      applyFilter();
      break;
    case 'toggles_change':
      showToggles(message.toggles);
      break;
    case 'mcp_status':
      mcpStatus.replaceChildren(...renderMcpStatus(message.started, message.servers));
      break;
  }
});

postPanelMessage({ type: 'panel_ready' });
