/**
 * Finishing a worktree session (SPEC 5b, issue 33 item 4), from the session list or the palette:
 * **Review** (every file the session changed against where it started, in VS Code's multi-file
 * diff), **Apply** (merged, or squashed and staged, into the user's working tree — never over
 * what the user has not committed: a refusal lists the files, conflicts open in the merge
 * editor), **Keep Branch** (the folder goes, the branch stays) and **Discard** (both go, after
 * asking). Nothing a session wrote is lost until the user discards it.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApplyMode, Worktree, Worktrees } from '../../core/session/worktree-port';
import { visibleText } from '../../core/text/visible-text';

export const ORIGINAL_SCHEME = 'openagent-original';

export interface FinishingDeps {
  worktrees: () => Worktrees | undefined;
  /** Ends the session in the window (its run stopped, its row gone); its conversation stays in the history. */
  endSession(worktree: Worktree): Promise<void>;
}

/** One line of a name or path for a notification (no control characters, no forged lines). */
const shown = (text: string) => visibleText(text, { keepNewlines: false });

/** Left sides of the review: a file as it was at the session's base commit. */
export class OriginalFiles implements vscode.TextDocumentContentProvider {
  private readonly worktrees = new Map<string, Worktree>();

  constructor(private readonly source: () => Worktrees | undefined) {}

  uriFor(worktree: Worktree, relative: string): vscode.Uri {
    this.worktrees.set(worktree.root, worktree);
    return vscode.Uri.from({
      scheme: ORIGINAL_SCHEME,
      path: `/${relative}`,
      query: new URLSearchParams({ root: worktree.root }).toString(),
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const worktree = this.worktrees.get(new URLSearchParams(uri.query).get('root') ?? '');
    const source = this.source();
    if (!worktree || !source) return '';
    const bytes = await source.original(worktree, uri.path.slice(1));
    return bytes ? new TextDecoder().decode(bytes) : '';
  }
}

export async function reviewWorktree(
  worktrees: Worktrees,
  worktree: Worktree,
  originals: OriginalFiles,
): Promise<void> {
  const changes = await worktrees.changes(worktree);
  if (changes.length === 0) {
    void vscode.window.showInformationMessage(`The session “${shown(worktree.name)}” has changed no file yet.`);
    return;
  }
  const empty = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: '/', query: 'root=' });
  const resources = changes.map((change) => {
    const now = vscode.Uri.file(path.join(worktree.root, change.path));
    const before = originals.uriFor(worktree, change.previousPath ?? change.path);
    if (change.kind === 'added') return [now, empty, now] as const;
    if (change.kind === 'deleted') return [now, before, empty] as const;
    return [now, before, now] as const;
  });
  await vscode.commands.executeCommand(
    'vscode.changes',
    `Session “${shown(worktree.name)}” (${worktree.branch}) against ${worktree.base.commit.slice(0, 8)}`,
    resources,
  );
}

/** Apply: merge or squash, then say what happened; on conflicts, open each file to resolve. */
export async function applyWorktree(deps: FinishingDeps, worktree: Worktree, mode?: ApplyMode): Promise<void> {
  const worktrees = deps.worktrees();
  if (!worktrees) return;
  const chosen =
    mode ??
    (
      await vscode.window.showQuickPick(
        [
          { label: 'Merge', description: 'a merge commit on your current branch', mode: 'merge' as const },
          {
            label: 'Squash',
            description: 'every change put into your working tree and staged, for you to commit',
            mode: 'squash' as const,
          },
        ],
        { title: `Apply the session “${shown(worktree.name)}” to your working tree` },
      )
    )?.mode;
  if (!chosen) return;
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Applying ${worktree.branch}…` },
    () => worktrees.apply(worktree, { mode: chosen }),
  );
  const files = (list: string[]) =>
    list
      .slice(0, 8)
      .map((file) => shown(file))
      .join(', ') + (list.length > 8 ? ` and ${list.length - 8} more` : '');
  switch (outcome.kind) {
    case 'applied': {
      const how = outcome.mode === 'merge' ? 'merged' : 'squashed into your working tree (staged)';
      const next = await vscode.window.showInformationMessage(
        `The session “${shown(worktree.name)}” was ${how}: ${outcome.files.length} file(s). ${outcome.notices.map(shown).join(' ')}`.trim(),
        'Keep Branch',
        'Discard Worktree and Branch',
      );
      if (next === 'Keep Branch') await keepWorktree(deps, worktree);
      if (next === 'Discard Worktree and Branch') await discardWorktree(deps, worktree);
      return;
    }
    case 'conflicts': {
      void vscode.window.showWarningMessage(
        `Applying “${shown(worktree.name)}” left conflicts in ${files(outcome.files)}: resolve them in the merge editor. ${outcome.notices.map(shown).join(' ')}`.trim(),
      );
      const first = outcome.files[0];
      if (first) await openInMergeEditor(vscode.Uri.file(path.join(worktree.workspaceRoot, first)));
      return;
    }
    case 'refused':
      void vscode.window.showWarningMessage(
        `Nothing was applied: ${shown(outcome.message)}${outcome.files.length ? ` (${files(outcome.files)})` : ''}`,
      );
      return;
    case 'nothing-to-apply':
      void vscode.window.showInformationMessage(
        `The session “${shown(worktree.name)}” has nothing to apply. ${outcome.notices.map(shown).join(' ')}`.trim(),
      );
      return;
  }
}

export async function keepWorktree(deps: FinishingDeps, worktree: Worktree): Promise<void> {
  const worktrees = deps.worktrees();
  if (!worktrees) return;
  const { notices } = await worktrees.keep(worktree);
  await deps.endSession(worktree);
  // The port says what it did (its sentence names the branch); ours only when it says nothing.
  const told =
    notices.length > 0
      ? notices.map(shown).join(' ')
      : `The branch ${shown(worktree.branch)} keeps the session’s work; its worktree folder is removed.`;
  void vscode.window.showInformationMessage(told);
}

export async function discardWorktree(deps: FinishingDeps, worktree: Worktree): Promise<void> {
  const worktrees = deps.worktrees();
  if (!worktrees) return;
  const answer = await vscode.window.showWarningMessage(
    `Discard the session “${shown(worktree.name)}”?`,
    {
      modal: true,
      detail: `Its worktree folder ${shown(worktree.root)} and its branch ${shown(worktree.branch)} are removed, with every change they hold. The conversation stays in the history.`,
    },
    'Discard',
  );
  if (answer !== 'Discard') return;
  await worktrees.discard(worktree);
  await deps.endSession(worktree);
}

/**
 * Opens a conflicted file in VS Code's merge editor, through the git extension (which knows the
 * file's three versions); where that extension is off or refuses, the file opens as text with its
 * conflict markers, where VS Code offers "Resolve in Merge Editor" itself.
 */
async function openInMergeEditor(uri: vscode.Uri): Promise<void> {
  const commands = await vscode.commands.getCommands(true);
  if (commands.includes('git.openMergeEditor')) {
    try {
      await vscode.commands.executeCommand('git.openMergeEditor', uri);
      // A merge editor's tab input has a `result` (TabInputTextMerge, newer than the API we build on).
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      if (typeof input === 'object' && input !== null && 'result' in input) return;
    } catch {
      // Falls through to the text editor.
    }
  }
  await vscode.window.showTextDocument(uri);
}
