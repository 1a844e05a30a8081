/**
 * Keep / Undo of the agent's edits from the editor's lenses, the editor title, the command palette
 * and the chat: a hunk (the one at the cursor when none is named), a file's, a turn's. Outcomes
 * are said where the user looks: a refusal (the lines changed since, the agent is working) as a
 * warning with the reason, an undo in the status bar with how to take it back.
 *
 * Each session has its own review (session-reviews.ts): a lens names its session; the chat's
 * buttons act on the session the chat shows, and open its files in its own folder (a worktree
 * session's in its worktree, so an undo writes there and never in the workspace).
 */
import * as vscode from 'vscode';
import type { ReviewOutcome } from '../../core/review/edit-review';
import { ReviewState } from '../../core/review/review-state';
import { REVIEW_COMMANDS, type ReviewEditor } from './review-editor';
import type { ReviewedSession, SessionReviews, SessionReviewTarget } from './session-reviews';
import type { CommandHandler } from '../commands/palette';

export const REVIEW_TURN_COMMANDS = {
  review: 'openagent.reviewEdits',
  keepTurn: 'openagent.keepEditsOfTurn',
  undoTurn: 'openagent.undoEditsOfTurn',
} as const;

export type ReviewAction = 'open' | 'keep' | 'undo';

export class ReviewCommands {
  constructor(
    private readonly reviews: SessionReviews,
    private readonly editor: ReviewEditor,
  ) {}

  /** The handler of each review command, by command id (the activation code registers them). */
  handlers(): Record<string, CommandHandler> {
    const commands: Record<string, (target?: SessionReviewTarget) => Promise<unknown>> = {
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

  /** The chat's buttons (on the session the chat shows): review (open) a file, keep or undo a file's or a turn's hunks. */
  async fromChat(action: ReviewAction, turn: number, relativePath?: string): Promise<void> {
    const session = this.reviews.shown();
    if (!session) return;
    // A webview is untrusted: it may name only a file the turn's review has.
    if (relativePath !== undefined && !session.review.state.file(turn, relativePath)) return;
    if (action === 'open') {
      if (relativePath) await this.open(session, relativePath, turn);
      return;
    }
    await this.run(action, { session: session.id, turn, ...(relativePath ? { path: relativePath } : {}) });
  }

  private async run(action: 'keep' | 'undo', target: SessionReviewTarget | undefined): Promise<void> {
    const outcome = target && (await this.reviews.decide(action, target));
    if (!outcome) {
      void vscode.window.showInformationMessage('OpenAgent has no edits to review there.');
      return;
    }
    tell(action, outcome);
  }

  /** "Review Edits": the files with hunks to review, of every session; the chosen one opens at its first hunk. */
  private async pickFile(): Promise<void> {
    const sessions = this.reviews.list();
    const files = sessions.flatMap((session) => session.review.pendingFiles().map((file) => ({ session, file })));
    if (files.length === 0) {
      void vscode.window.showInformationMessage('OpenAgent has no edits left to review.');
      return;
    }
    // The session is named when more than one has edits to review.
    const several = new Set(files.map((item) => item.session)).size > 1;
    const picked = await vscode.window.showQuickPick(
      files.map(({ session, file }) => ({
        label: file.path,
        description:
          (several ? `${session.name} · ` : '') +
          `turn ${file.turn} · ${ReviewState.pending(file).length} to review${file.change === 'created' ? ' · new file' : ''}`,
        session,
        file,
      })),
      { title: 'OpenAgent: Review Edits', placeHolder: 'A file the agent changed' },
    );
    if (picked) await this.open(picked.session, picked.file.path, picked.file.turn);
  }

  /** Opens a file of a session's review, in its folder, at the first hunk (of `turn` when given) still to review. */
  private async open(session: ReviewedSession, relativePath: string, turn?: number): Promise<void> {
    const root = session.root();
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

  private hunkAtCursor(): SessionReviewTarget | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    const cursor = editor.selection.active.line;
    const places = this.editor.places(editor.document).filter((place) => place.line !== undefined);
    // The hunk the cursor is in, else the nearest one below it, else the last one.
    const place =
      places.find((item) => cursor >= item.line! && cursor < item.line! + Math.max(1, item.hunk.added.length)) ??
      places.find((item) => item.line! >= cursor) ??
      places.at(-1);
    return place && { session: place.session, turn: place.turn, path: place.path, hunks: [place.hunk.index] };
  }

  private activeFile(): SessionReviewTarget | undefined {
    const editor = vscode.window.activeTextEditor;
    const owner = editor && this.editor.owner(editor.document.uri);
    return owner ? { session: owner.session.id, path: owner.relative } : undefined;
  }

  /** The latest turn with edits to review of the session the chat shows. */
  private latestTurn(): SessionReviewTarget | undefined {
    const session = this.reviews.shown();
    const turn = session?.review.pendingFiles().at(-1)?.turn;
    return turn === undefined ? undefined : { session: session!.id, turn };
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
function asTarget(argument: unknown): SessionReviewTarget | undefined {
  if (typeof argument !== 'object' || argument === null || argument instanceof vscode.Uri) return undefined;
  const { session, turn, path, hunks } = argument as Record<string, unknown>;
  const target: SessionReviewTarget = {
    ...(typeof session === 'string' ? { session } : {}),
    ...(typeof turn === 'number' && Number.isInteger(turn) ? { turn } : {}),
    ...(typeof path === 'string' ? { path } : {}),
    ...(Array.isArray(hunks) && hunks.every((hunk) => typeof hunk === 'number') ? { hunks: hunks as number[] } : {}),
  };
  const { session: _session, ...hunksOf } = target;
  return Object.keys(hunksOf).length > 0 ? target : undefined;
}
