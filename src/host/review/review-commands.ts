/**
 * Keep / Undo of the agent's edits from the editor's lenses, the editor title, the command palette
 * and the chat: a hunk (the one at the cursor when none is named), a file's, a turn's. Outcomes
 * are said where the user looks: a refusal (the lines changed since, the agent is working) as a
 * warning with the reason, an undo in the status bar with how to take it back.
 */
import * as vscode from 'vscode';
import type { EditReview, ReviewOutcome, ReviewTarget } from '../../core/review/edit-review';
import { ReviewState } from '../../core/review/review-state';
import { REVIEW_COMMANDS, type ReviewEditor } from './review-editor';
import type { CommandHandler } from '../commands/palette';

export const REVIEW_TURN_COMMANDS = {
  review: 'openagent.reviewEdits',
  keepTurn: 'openagent.keepEditsOfTurn',
  undoTurn: 'openagent.undoEditsOfTurn',
} as const;

export type ReviewAction = 'open' | 'keep' | 'undo';

export class ReviewCommands {
  constructor(
    private readonly review: EditReview,
    private readonly editor: ReviewEditor,
    private readonly root: () => string | undefined,
  ) {}

  /** The handler of each review command, by command id (the activation code registers them). */
  handlers(): Record<string, CommandHandler> {
    const commands: Record<string, (target?: ReviewTarget) => Promise<unknown>> = {
      [REVIEW_COMMANDS.keepHunk]: async (target) => this.run('keep', target ?? this.hunkAtCursor()),
      [REVIEW_COMMANDS.undoHunk]: async (target) => this.run('undo', target ?? this.hunkAtCursor()),
      [REVIEW_COMMANDS.keepFile]: async (target) => this.run('keep', target ?? this.activeFile()),
      [REVIEW_COMMANDS.undoFile]: async (target) => this.run('undo', target ?? this.activeFile()),
      [REVIEW_TURN_COMMANDS.keepTurn]: async (target) => this.run('keep', target ?? this.latestTurn()),
      [REVIEW_TURN_COMMANDS.undoTurn]: async (target) => this.run('undo', target ?? this.latestTurn()),
      [REVIEW_TURN_COMMANDS.review]: async () => this.pickFile(),
    };
    // A lens or a menu passes its own argument; anything else (a URI from a menu) is not a target.
    return Object.fromEntries(
      Object.entries(commands).map(([id, run]) => [id, (argument?: unknown) => run(asTarget(argument))]),
    );
  }

  /** The chat's buttons: review (open) a file, keep or undo a file's or a turn's hunks. */
  async fromChat(action: ReviewAction, turn: number, relativePath?: string): Promise<void> {
    // A webview is untrusted: it may name only a file the turn's review has.
    if (relativePath !== undefined && !this.review.state.file(turn, relativePath)) return;
    if (action === 'open') {
      if (relativePath) await this.open(relativePath, turn);
      return;
    }
    await this.run(action, { turn, ...(relativePath ? { path: relativePath } : {}) });
  }

  private async run(action: 'keep' | 'undo', target: ReviewTarget | undefined): Promise<void> {
    if (!target) {
      void vscode.window.showInformationMessage('OpenAgent has no edits to review there.');
      return;
    }
    const outcome = action === 'keep' ? await this.review.keep(target) : await this.review.undo(target);
    tell(action, outcome);
  }

  /** "Review Edits": the files with hunks to review; the chosen one opens at its first hunk. */
  private async pickFile(): Promise<void> {
    const files = this.review.pendingFiles();
    if (files.length === 0) {
      void vscode.window.showInformationMessage('OpenAgent has no edits left to review.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      files.map((file) => ({
        label: file.path,
        description: `turn ${file.turn} · ${ReviewState.pending(file).length} to review${file.change === 'created' ? ' · new file' : ''}`,
        file,
      })),
      { title: 'OpenAgent: Review Edits', placeHolder: 'A file the agent changed' },
    );
    if (picked) await this.open(picked.file.path, picked.file.turn);
  }

  /** Opens a file of the review at the first hunk (of `turn` when given) still to review. */
  private async open(relativePath: string, turn?: number): Promise<void> {
    const root = this.root();
    if (!root) return;
    const uri = vscode.Uri.joinPath(vscode.Uri.file(root), ...relativePath.split('/'));
    let document: vscode.TextDocument;
    try {
      document = await vscode.workspace.openTextDocument(uri);
    } catch {
      void vscode.window.showWarningMessage(`OpenAgent cannot open ${relativePath}: it no longer exists.`);
      return;
    }
    const places = this.editor.places(document).filter((place) => place.line !== undefined);
    const first = places.find((place) => place.turn === turn) ?? places[0];
    const line = first?.line ?? 0;
    await vscode.window.showTextDocument(document, {
      preview: false,
      selection: new vscode.Range(line, 0, line, 0),
    });
  }

  private hunkAtCursor(): ReviewTarget | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    const cursor = editor.selection.active.line;
    const places = this.editor.places(editor.document).filter((place) => place.line !== undefined);
    // The hunk the cursor is in, else the nearest one below it, else the last one.
    const place =
      places.find((item) => cursor >= item.line! && cursor < item.line! + Math.max(1, item.hunk.added.length)) ??
      places.find((item) => item.line! >= cursor) ??
      places.at(-1);
    return place && { turn: place.turn, path: place.path, hunks: [place.hunk.index] };
  }

  private activeFile(): ReviewTarget | undefined {
    const editor = vscode.window.activeTextEditor;
    const relative = editor && this.editor.relative(editor.document.uri);
    return relative ? { path: relative } : undefined;
  }

  private latestTurn(): ReviewTarget | undefined {
    const turn = this.review.pendingFiles().at(-1)?.turn;
    return turn === undefined ? undefined : { turn };
  }
}

function tell(action: 'keep' | 'undo', outcome: ReviewOutcome): void {
  if (outcome.status === 'busy') {
    void vscode.window.showWarningMessage('OpenAgent is still working: stop it before undoing its edits.');
    return;
  }
  for (const refusal of outcome.refused)
    void vscode.window.showWarningMessage(
      `OpenAgent could not undo ${refusal.count === 1 ? 'a change' : `${refusal.count} changes`} in ${refusal.path}: ${refusal.reason}. Nothing else was changed.`,
    );
  if (outcome.status === 'nothing' && outcome.refused.length === 0)
    void vscode.window.showInformationMessage('OpenAgent has no edits left to review there.');
  else if (action === 'undo' && outcome.undone > 0)
    vscode.window.setStatusBarMessage(
      `OpenAgent: undid ${outcome.undone === 1 ? '1 change' : `${outcome.undone} changes`} (Ctrl+Z in the file takes it back)`,
      8_000,
    );
}

/** A target as a lens or the chat passes it; anything else is ignored. */
function asTarget(argument: unknown): ReviewTarget | undefined {
  if (typeof argument !== 'object' || argument === null || argument instanceof vscode.Uri) return undefined;
  const { turn, path, hunks } = argument as Record<string, unknown>;
  const target: ReviewTarget = {
    ...(typeof turn === 'number' && Number.isInteger(turn) ? { turn } : {}),
    ...(typeof path === 'string' ? { path } : {}),
    ...(Array.isArray(hunks) && hunks.every((hunk) => typeof hunk === 'number') ? { hunks: hunks as number[] } : {}),
  };
  return Object.keys(target).length > 0 ? target : undefined;
}
