/**
 * Palette commands about the conversation and its records: Compact Conversation, Export
 * Conversation (markdown or JSON), Export Audit Log (JSONL or CSV; the developer panel shows it),
 * Show Usage and Budget.
 */
import * as vscode from 'vscode';
import type { ReadOnlyDocuments } from '../read-only-documents';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { AuditRecord, ConversationStore, UsageTotals } from '../../core/ports';
import type { AuditScope } from '../../protocol/messages';
import { describeLimit, formatAmount, type BudgetPolicy, type SpendingLedger } from '../../core/policy/budget';
import { budgetStandings, describeOnExceeded, type TeamStandings } from '../../core/policy/budget-status';
import { LAYER_NAMES, type PolicyDecision } from '../../core/policy/policy-layers';
import { auditToCsv, auditToJsonl, conversationToMarkdown, exportConversation } from '../../store/conversation-export';

type OpenStore = () => Promise<ConversationStore | undefined>;

export async function compactConversation(session: ConversationSession): Promise<void> {
  const focus = await vscode.window.showInputBox({
    prompt: 'Compact the conversation: what should the summary keep? (optional)',
    placeHolder: 'e.g. the decisions about the API',
  });
  if (focus === undefined) return;
  if (!(await session.compact(focus.trim() || undefined)))
    void vscode.window.showInformationMessage('There is no conversation to compact yet.');
}

export async function exportCurrentConversation(session: ConversationSession, openStore: OpenStore): Promise<void> {
  const store = await openStore();
  const id = session.currentId;
  if (!store || !id || !(await store.getConversation(id))) {
    void vscode.window.showInformationMessage('There is no saved conversation to export yet.');
    return;
  }
  await session.flush();
  const format = await vscode.window.showQuickPick(['Markdown', 'JSON (can be imported again)'], {
    placeHolder: 'Export the conversation as',
  });
  if (!format) return;
  const exported = await exportConversation(store, id);
  const markdown = format === 'Markdown';
  const target = await vscode.window.showSaveDialog({
    title: 'Export the conversation to',
    defaultUri: vscode.Uri.joinPath(
      vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(process.cwd()),
      `${fileName(exported.conversation.title)}.${markdown ? 'md' : 'json'}`,
    ),
    filters: markdown ? { Markdown: ['md'] } : { JSON: ['json'] },
  });
  if (!target) return;
  const text = markdown ? conversationToMarkdown(exported) : JSON.stringify(exported, null, 2);
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
  void vscode.window.showInformationMessage(`Exported to ${vscode.workspace.asRelativePath(target)}.`);
}

/** The audit records of a scope (this conversation, or every one), oldest first. */
export async function listAudit(
  session: ConversationSession,
  openStore: OpenStore,
  scope: AuditScope,
): Promise<AuditRecord[]> {
  const store = await openStore();
  if (!store) return [];
  await session.flush();
  if (scope === 'conversation' && !session.currentId) return [];
  return store.listAudit(scope === 'conversation' ? { conversationId: session.currentId } : {});
}

/**
 * Export Audit Log (palette, and the developer panel's Audit Log buttons): the scope and format
 * asked for when not given, then a save dialog; JSONL keeps each record whole, CSV has one row
 * per record with its data as JSON.
 */
export async function exportAuditLog(
  session: ConversationSession,
  openStore: OpenStore,
  given: { scope?: AuditScope; format?: 'jsonl' | 'csv' } = {},
): Promise<void> {
  const scope =
    given.scope ??
    (
      await vscode.window.showQuickPick(
        [
          ...(session.currentId ? [{ label: 'This conversation', scope: 'conversation' as const }] : []),
          { label: 'Every conversation', scope: 'all' as const },
        ],
        { placeHolder: 'Export the audit trail of' },
      )
    )?.scope;
  if (!scope) return;
  const format =
    given.format ??
    (
      await vscode.window.showQuickPick(
        [
          { label: 'JSONL', format: 'jsonl' as const },
          { label: 'CSV', format: 'csv' as const },
        ],
        { placeHolder: 'Export the audit trail as' },
      )
    )?.format;
  if (!format) return;
  const records = await listAudit(session, openStore, scope);
  const target = await vscode.window.showSaveDialog({
    title: `Save the audit trail as ${format.toUpperCase()}`,
    defaultUri: vscode.Uri.joinPath(
      vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(process.cwd()),
      `openagent-audit.${format}`,
    ),
    filters: format === 'csv' ? { CSV: ['csv'] } : { 'JSON Lines': ['jsonl'] },
  });
  if (!target) return;
  const text = format === 'csv' ? auditToCsv(records) : auditToJsonl(records);
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
  void vscode.window.showInformationMessage(
    `Exported ${records.length} audit record(s) to ${vscode.workspace.asRelativePath(target)}.`,
  );
}

/** What Show Usage and Budget needs besides the store: the budgets in force and where their spending is read. */
export interface BudgetView {
  policy(): BudgetPolicy | undefined;
  ledger: SpendingLedger;
  /** Where the team database's limits stand, when a team is configured. */
  team(): TeamStandings | undefined;
  /** Which policy layer decided each rule (the team's, the user's, the workspace's). */
  decisions(): PolicyDecision[];
}

export async function showUsage(
  session: ConversationSession,
  openStore: OpenStore,
  budgets: BudgetView,
  documents: ReadOnlyDocuments,
): Promise<void> {
  const store = await openStore();
  if (!store) return;
  await session.flush();
  const today = new Date().toISOString().slice(0, 10);
  const rows: Array<[string, UsageTotals]> = [];
  if (session.currentId)
    rows.push(['This conversation', await store.usageTotals({ conversationId: session.currentId })]);
  rows.push(['Today (UTC)', await store.usageTotals({ day: today })]);
  rows.push(['This month (UTC)', await store.usageTotals({ month: today.slice(0, 7) })]);
  rows.push(['All time', await store.usageTotals()]);
  const table = [
    '| | calls | input | output | cache read | cache write | cost |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ([label, totals]) =>
        `| ${label} | ${totals.calls} | ${totals.inputTokens} | ${totals.outputTokens} | ${totals.cacheReadTokens} | ${totals.cacheWriteTokens} | $${totals.costUsd.toFixed(4)} |`,
    ),
  ];
  const policy = budgets.policy();
  const team = budgets.team();
  let teamProblem: string | undefined;
  const standings = await budgetStandings(
    policy,
    budgets.ledger,
    session.currentId,
    Date.now(),
    team &&
      ((limits, conversationId) =>
        team(limits, conversationId).catch((error: unknown) => {
          teamProblem = `The team database did not answer (${error instanceof Error ? error.message : String(error)}): the team's limits are not shown.`;
          return [];
        })),
  );
  const decisions = budgets.decisions();
  const setBy = (key: string, limit: number) => {
    const layer = decisions.find((decision) => decision.rule === `budget.${key}: ${limit}`)?.layer;
    return `budget.${key}${layer ? ` (${LAYER_NAMES[layer]})` : ''}`;
  };
  const budgetLines = standings.length
    ? [
        '| limit | spent | of | used | set by |',
        '|---|---:|---:|---:|---|',
        ...standings.map(
          (standing) =>
            `| ${describeLimit(standing.scope, standing.unit)} | ${formatAmount(standing.unit, standing.spent)} | ${formatAmount(standing.unit, standing.limit)} | ${Math.floor((standing.spent / standing.limit) * 100)} % | ${setBy(standing.key, standing.limit)} |`,
        ),
        '',
        describeOnExceeded(policy),
        ...(teamProblem ? ['', teamProblem] : []),
      ]
    : [
        'No budgets are set. Set them under `budget:` in `.openagent/agent.yaml` (Open Agent Policy) or in the `openagent.policy` setting.',
      ];
  const rules = decisions.filter((decision) => !decision.rule.startsWith('budget.'));
  const policyLines = rules.length
    ? ['| rule | decided by |', '|---|---|', ...rules.map((d) => `| \`${d.rule}\` | ${LAYER_NAMES[d.layer]} |`)]
    : ['No tool, command or approval rules are set.'];
  const content = [
    '# OpenAgent usage',
    '',
    ...table,
    '',
    '## Budgets',
    '',
    ...budgetLines,
    '',
    '## Policy rules in force',
    '',
    ...policyLines,
  ].join('\n');
  const document = await documents.open('OpenAgent usage.md', content, 'markdown');
  await vscode.commands.executeCommand('markdown.showPreview', document.uri);
}

function fileName(title: string): string {
  return (
    title
      .replace(/[^\w -]+/g, '')
      .trim()
      .replace(/\s+/g, '-')
      .slice(0, 60) || 'conversation'
  );
}
