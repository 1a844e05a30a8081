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
import type { AgentEventType } from '../../src/protocol/events';
import { parseHostToPanel } from '../../src/protocol/panel-message-check';
import type { PanelToggle, PanelToggles } from '../../src/protocol/messages';
import { postPanelMessage, webviewState } from '../shared/vscode-api';
import { emptyNote } from './dom';
import { renderMcpStatus } from './panel-sections';
import { PanelView } from './panel-view';
import { AuditView, type AuditScope } from './audit-view';
import { renderPolicy } from './policy-section';
import { renderForkTree } from './forks-section';
import { fillPicker, renderComparison } from './compare-section';
import { EventThumbnails } from './event-thumbnails';

const RUN_ENDS: ReadonlySet<string> = new Set(['done', 'error', 'interrupted']);

// New tabs go last: the open tab is kept by its index.
const TABS = ['tools', 'agents', 'usage', 'events', 'traces', 'audit', 'policy', 'forks', 'compare'] as const;
const TAB_TITLES: Record<(typeof TABS)[number], string> = {
  tools: 'Tools',
  agents: 'Agents & Tasks',
  usage: 'Usage',
  events: 'Events',
  traces: 'LLM Traces',
  audit: 'Audit Log',
  policy: 'Policy',
  forks: 'Forks',
  compare: 'Compare',
};
const AUDIT_TAB = TABS.indexOf('audit');
const COMPARE_TAB = TABS.indexOf('compare');

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

const AUDIT_BAR = `
  <div class="section-bar filter-bar">
    <vscode-single-select id="audit-scope" aria-label="Which audit records">
      <vscode-option value="conversation">This conversation</vscode-option>
      <vscode-option value="all">Every conversation</vscode-option>
    </vscode-single-select>
    <vscode-single-select id="audit-kind" aria-label="Kind of record">
      <vscode-option value="">All kinds</vscode-option>
      <vscode-option value="model_call">Model calls</vscode-option>
      <vscode-option value="tool_call">Tool calls</vscode-option>
      <vscode-option value="policy">Policy violations</vscode-option>
      <vscode-option value="budget">Budget</vscode-option>
    </vscode-single-select>
    <vscode-button secondary id="audit-refresh">Refresh</vscode-button>
    <vscode-button secondary id="audit-export-jsonl">Export JSONL…</vscode-button>
    <vscode-button secondary id="audit-export-csv">Export CSV…</vscode-button>
    <span id="audit-count" class="muted"></span>
  </div>`;
const FORKS_BAR = `
  <div class="section-bar">
    <vscode-button secondary id="forks-refresh">Refresh</vscode-button>
    <span id="forks-notice" class="forks-notice" role="status"></span>
  </div>`;
const COMPARE_BAR = `
  <div class="section-bar filter-bar">
    <label>A <select id="compare-a" class="compare-picker" aria-label="Run A"></select></label>
    <label>B <select id="compare-b" class="compare-picker" aria-label="Run B"></select></label>
    <vscode-button id="compare-go">Compare</vscode-button>
    <vscode-button secondary id="compare-refresh">Refresh</vscode-button>
    <span id="compare-notice" class="forks-notice" role="status"></span>
  </div>`;
const BARS: Partial<Record<(typeof TABS)[number], string>> = {
  compare: COMPARE_BAR,
  tools: TOOLS_BAR,
  events: EVENTS_BAR,
  audit: AUDIT_BAR,
  forks: FORKS_BAR,
};

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
    <p id="sandbox-status" class="mcp-status" aria-label="Command sandbox"></p>
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
        ${BARS[tab] ?? ''}
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
const sandboxStatus = byId('sandbox-status');
mcpStatus.textContent = 'MCP: not started yet';
const policySection = byId('policy');
const policyCount = byId('count-policy');
policySection.replaceChildren(emptyNote('The policy in force shows here.'));
const forksSection = byId('forks');
const forksCount = byId('count-forks');
const forksNotice = byId('forks-notice');
forksSection.replaceChildren(emptyNote('The tree of forks of this conversation shows here.'));
function openFork(conversationId: string): void {
  forksNotice.textContent = '';
  postPanelMessage({ type: 'fork_open', conversationId });
}
byId('forks-refresh').addEventListener('click', () => {
  forksNotice.textContent = '';
  postPanelMessage({ type: 'forks_request' });
});

const compareSection = byId('compare');
const compareCount = byId('count-compare');
const compareNotice = byId('compare-notice');
const comparePickers = { a: byId<HTMLSelectElement>('compare-a'), b: byId<HTMLSelectElement>('compare-b') };
compareSection.replaceChildren(emptyNote('Choose two recorded conversations (A and B) to set them side by side.'));
function requestCompare(withRuns: boolean): void {
  compareNotice.textContent = '';
  const a = comparePickers.a.value;
  const b = comparePickers.b.value;
  postPanelMessage(withRuns && a && b ? { type: 'compare_request', a, b } : { type: 'compare_request' });
}
byId('compare-go').addEventListener('click', () => requestCompare(true));
byId('compare-refresh').addEventListener('click', () => requestCompare(false));
const compareActions = {
  rerun: (conversationId: string, step: number) => {
    compareNotice.textContent = '';
    postPanelMessage({ type: 'compare_rerun', conversationId, step });
  },
};

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
const thumbnails = new EventThumbnails((sha256s) => postPanelMessage({ type: 'image_thumbnails_request', sha256s }));
view.showThumbnails(thumbnails);

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
tabs.addEventListener('vsc-tabs-select', () => {
  applyFilter();
  if (tabs.selectedIndex === AUDIT_TAB) requestAudit();
  if (tabs.selectedIndex === COMPARE_TAB && comparePickers.a.options.length === 0) requestCompare(false);
});
byId('tools-expand').addEventListener('click', () => view.setToolsOpen(true));
byId('tools-collapse').addEventListener('click', () => view.setToolsOpen(false));

// The Audit Log: asked for when its tab opens, on Refresh, and when a run ends while it is open.
const audit = new AuditView({ list: byId('audit'), count: byId('audit-count'), counter: byId('count-audit') });
const auditScope = byId<ValueElement>('audit-scope');
const auditKind = byId<ValueElement>('audit-kind');
const scopeNow = (): AuditScope => (auditScope.value === 'all' ? 'all' : 'conversation');
function requestAudit(): void {
  postPanelMessage({ type: 'audit_request', scope: scopeNow() });
}
auditScope.addEventListener('change', requestAudit);
auditKind.addEventListener('change', () => audit.setKind(auditKind.value));
byId('audit-refresh').addEventListener('click', requestAudit);
byId('audit-export-jsonl').addEventListener('click', () =>
  postPanelMessage({ type: 'audit_export', scope: scopeNow(), format: 'jsonl' }),
);
byId('audit-export-csv').addEventListener('click', () =>
  postPanelMessage({ type: 'audit_export', scope: scopeNow(), format: 'csv' }),
);

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
  const message = parseHostToPanel(event.data);
  if (!message) return;
  switch (message.type) {
    case 'agent_events':
      view.apply(message.events);
      if (tabs.selectedIndex === AUDIT_TAB && message.events.some((item) => RUN_ENDS.has(item.type))) requestAudit();
      break;
    case 'audit_records':
      if (message.scope === scopeNow()) audit.show(message.records, message.total);
      break;
    case 'audit_show':
      tabs.selectedIndex = AUDIT_TAB;
      applyFilter();
      requestAudit();
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
    case 'sandbox_status':
      sandboxStatus.textContent = message.text;
      sandboxStatus.classList.toggle('mcp-error', !message.confined);
      break;
    case 'policy_status':
      policySection.replaceChildren(...renderPolicy(message));
      policyCount.textContent = String(message.total);
      break;
    case 'fork_tree':
      // Drawn in one go whichever tab is open, so it is current when the tab is opened.
      forksSection.replaceChildren(...renderForkTree(message, openFork));
      forksCount.textContent = String(Math.max(0, message.total - 1));
      break;
    case 'forks_notice':
      forksNotice.textContent = message.text;
      forksNotice.dataset.level = message.level;
      break;
    case 'compare_choices':
      fillPicker(comparePickers.a, message.choices, 'Choose run A…');
      fillPicker(comparePickers.b, message.choices, 'Choose run B…');
      break;
    case 'compare_view':
      comparePickers.a.value = message.a.conversationId;
      comparePickers.b.value = message.b.conversationId;
      compareSection.replaceChildren(...renderComparison(message, compareActions));
      compareCount.textContent = String(message.rows.filter((row) => !row.same).length);
      compareSection.querySelector('[data-first="true"]')?.scrollIntoView({ block: 'center' });
      break;
    case 'compare_notice':
      compareNotice.textContent = message.text;
      compareNotice.dataset.level = message.level;
      break;
    case 'compare_show':
      tabs.selectedIndex = COMPARE_TAB;
      applyFilter();
      break;
    case 'image_thumbnails':
      thumbnails.receive(message.thumbnails);
      break;
    default:
      message satisfies never;
  }
});

postPanelMessage({ type: 'panel_ready' });
