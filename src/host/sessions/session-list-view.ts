/**
 * The session list (SPEC 5b): a tree view in the OpenAgent container with one row per session of
 * the window — its name, where it works, its state (running, waiting for you, done, failed,
 * stopped), the files it changed and what it cost. Clicking a row shows that session in the chat
 * and the developer panel; a worktree session's row offers Review, Apply, Keep Branch and Discard.
 */
import * as vscode from 'vscode';
import type { SessionRegistry, SessionView } from '../../core/session/session-registry';
import type { SessionState } from '../../core/session/session-summary';
import { placeLabel } from '../../core/session/work-place';
import { visibleText } from '../../core/text/visible-text';

export const SHOW_SESSION_COMMAND = 'openagent.showSession';

const STATE_LABEL: Record<SessionState, string> = {
  new: 'not started',
  running: 'running',
  waiting: 'waiting for you',
  done: 'done',
  failed: 'failed',
  stopped: 'stopped',
};

const STATE_ICON: Record<SessionState, string> = {
  new: 'circle-outline',
  running: 'loading~spin',
  waiting: 'bell-dot',
  done: 'check',
  failed: 'error',
  stopped: 'debug-stop',
};

export class SessionListView implements vscode.TreeDataProvider<string>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<string | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly stop: () => void;

  constructor(private readonly registry: SessionRegistry) {
    this.stop = registry.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(element?: string): string[] {
    return element ? [] : this.registry.list().map((view) => view.id);
  }

  getTreeItem(id: string): vscode.TreeItem {
    const view = this.registry.list().find((entry) => entry.id === id);
    if (!view) return new vscode.TreeItem('(ended)');
    const item = new vscode.TreeItem(visibleText(view.name, { keepNewlines: false }));
    item.id = view.id;
    item.description = describe(view);
    item.tooltip = tooltip(view);
    item.iconPath = new vscode.ThemeIcon(view.missing ? 'warning' : STATE_ICON[view.state]);
    // Menus tell the workspace's session (no finishing) from a worktree's, and a running one.
    item.contextValue = [
      view.place.kind === 'worktree' ? 'worktreeSession' : 'workspaceSession',
      view.missing ? 'missing' : view.state,
    ].join(' ');
    item.command = { command: SHOW_SESSION_COMMAND, title: 'Show Session', arguments: [view.id] };
    return item;
  }

  dispose(): void {
    this.stop();
    this.changed.dispose();
  }
}

/** "running · 3 files · $0.0123" (or "· 12.4k tokens" where calls have no price), shown beside the name. */
export function describe(view: SessionView): string {
  const parts = [view.missing ? 'folder gone' : STATE_LABEL[view.state]];
  if (view.shown) parts.unshift('shown');
  if (view.filesChanged > 0) parts.push(`${view.filesChanged} file${view.filesChanged === 1 ? '' : 's'}`);
  if (view.costUsd > 0) parts.push(`$${view.costUsd.toFixed(view.costUsd < 1 ? 4 : 2)}`);
  else if (view.tokens > 0) parts.push(`${view.tokens.toLocaleString('en-US')} tokens`);
  return parts.join(' · ');
}

function tooltip(view: SessionView): string {
  const lines = [
    `${visibleText(view.name, { keepNewlines: false })} — ${placeLabel(view.place)}`,
    view.place.root ? `Works in ${view.place.root}` : 'Works without a folder',
    view.missing
      ? 'Its worktree folder is gone (deleted or moved): keep its branch or discard it.'
      : `State: ${STATE_LABEL[view.state]}`,
  ];
  if (view.error) lines.push(`Error: ${visibleText(view.error, { keepNewlines: false })}`);
  return lines.join('\n');
}
