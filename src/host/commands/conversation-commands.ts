/**
 * Palette commands about the conversation and its records: Compact Conversation, Export
 * Conversation (markdown or JSON), Show Audit Log (JSONL in an editor, or CSV/JSONL to a file),
 * Show Usage and Budget.
 */
import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/agent/conversation-session';
import type { ConversationStore, UsageTotals } from '../../core/ports';
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

export async function showAuditLog(session: ConversationSession, openStore: OpenStore): Promise<void> {
  const store = await openStore();
  if (!store) return;
  await session.flush();
  const scope = await vscode.window.showQuickPick(
    [
      { label: 'This conversation', id: session.currentId },
      { label: 'Every conversation', id: undefined },
    ].filter((item) => item.label !== 'This conversation' || item.id !== undefined),
    { placeHolder: 'Show the audit trail of' },
  );
  if (!scope) return;
  const records = await store.listAudit({ conversationId: scope.id });
  const document = await vscode.workspace.openTextDocument({
    content: records.length ? auditToJsonl(records) : '',
    language: 'jsonl',
  });
  await vscode.window.showTextDocument(document, { preview: true });
  const save = await vscode.window.showInformationMessage(
    `${records.length} audit record(s): model calls, tool calls and approval decisions.`,
    'Save as CSV',
  );
  if (save) {
    const target = await vscode.window.showSaveDialog({
      title: 'Save the audit trail as CSV',
      filters: { CSV: ['csv'] },
    });
    if (target) await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(auditToCsv(records)));
  }
}

export async function showUsage(session: ConversationSession, openStore: OpenStore): Promise<void> {
  const store = await openStore();
  if (!store) return;
  await session.flush();
  const today = new Date().toISOString().slice(0, 10);
  const rows: Array<[string, UsageTotals]> = [];
  if (session.currentId)
    rows.push(['This conversation', await store.usageTotals({ conversationId: session.currentId })]);
  rows.push(['Today (UTC)', await store.usageTotals({ day: today })]);
  rows.push(['All time', await store.usageTotals()]);
  const table = [
    '| | calls | input | output | cache read | cache write | cost |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ([label, totals]) =>
        `| ${label} | ${totals.calls} | ${totals.inputTokens} | ${totals.outputTokens} | ${totals.cacheReadTokens} | ${totals.cacheWriteTokens} | $${totals.costUsd.toFixed(4)} |`,
    ),
  ];
  const content = [
    '# OpenAgent usage',
    '',
    ...table,
    '',
    'Budgets (per conversation, daily, monthly) are not enforced yet: they come with policy as code.',
  ].join('\n');
  const document = await vscode.workspace.openTextDocument({ content, language: 'markdown' });
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
