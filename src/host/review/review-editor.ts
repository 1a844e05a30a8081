/**
 * The agent's edits marked in the editor, where the user reads code: each hunk still to review
 * has its lines highlighted (green, like a diff's added lines; what it removed in a hover and a
 * faded note) and "Keep | Undo" above it, with "Keep All | Undo All" at the top of the file.
 *
 * Why CodeLens and decorations rather than a diff editor: VS Code 1.100 has no API for actions
 * on a diff editor's hunks (only the SCM's quick diff has them, for a repository's changes), and
 * a diff editor shows a copy beside the file. In the file itself, the hunks move with the user's
 * typing, Ctrl+Z undoes an undo, and "Open Diff" is still there for a side-by-side look.
 *
 * Every session has its own review (session-reviews.ts): a file shows the hunks of the session
 * whose folder holds it — a worktree's file its worktree session's — and each lens names that
 * session, so Keep and Undo act on its review whichever session the chat shows by then.
 */
import * as vscode from 'vscode';
import type { HunkPlace } from '../../core/review/edit-review';
import { Disposable } from '../disposable';
import type { ReviewedFile, SessionReviews, SessionReviewTarget } from './session-reviews';

/** A pending hunk of a document and the session whose review it is in. */
export interface SessionHunkPlace extends HunkPlace {
  session: string;
}

/** Set while the active editor's file has hunks to review (the editor title's Keep All / Undo All). */
export const REVIEW_CONTEXT_KEY = 'openagent.fileHasEditsToReview';

export const REVIEW_COMMANDS = {
  keepHunk: 'openagent.keepEdit',
  undoHunk: 'openagent.undoEdit',
  keepFile: 'openagent.keepEditsInFile',
  undoFile: 'openagent.undoEditsInFile',
} as const;

/** Waits this long after typing before the marks are placed again. */
const RETYPE_DELAY_MS = 200;

export class ReviewEditor extends Disposable implements vscode.CodeLensProvider {
  private readonly lensesChanged = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly added = this._register(
    vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    }),
  );
  private readonly removed = this._register(
    vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      borderColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
      borderStyle: 'solid',
      borderWidth: '0 0 0 3px',
      after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 2em' },
    }),
  );
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly reviews: SessionReviews) {
    super();
    this._register(vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this));
    const unsubscribe = reviews.onDidChange(() => this.refresh());
    this._register({ dispose: unsubscribe });
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()));
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.updateContextKey()));
    this._register(
      vscode.workspace.onDidChangeTextDocument((event) => {
        const owner = this.owner(event.document.uri);
        if (!owner || event.contentChanges.length === 0) return;
        // An undo the user took back (Ctrl+Z) is noticed before the model is told of it.
        const { review } = owner.session;
        if (review.hasUntold(owner.relative)) void review.recheck(owner.relative);
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.refresh(), RETYPE_DELAY_MS);
      }),
    );
    this._register({ dispose: () => this.timer && clearTimeout(this.timer) });
    this.refresh();
  }

  /** The pending hunks of a document (of the session it belongs to), where they are in it now. */
  places(document: vscode.TextDocument): SessionHunkPlace[] {
    const owner = this.owner(document.uri);
    if (!owner) return [];
    const session = owner.session.id;
    return owner.session.review.place(owner.relative, document.getText()).map((place) => ({ ...place, session }));
  }

  /** The session a file belongs to and its path in that session's folder; undefined outside every one. */
  owner(uri: vscode.Uri): ReviewedFile | undefined {
    return uri.scheme === 'file' ? this.reviews.ownerOf(uri.fsPath) : undefined;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const places = this.places(document);
    if (places.length === 0) return [];
    const relative = places[0]!.path;
    const session = places[0]!.session;
    const file: SessionReviewTarget = { session, path: relative };
    const found = places.filter((place) => place.line !== undefined);
    const lost = places.length - found.length;
    const top = new vscode.Range(0, 0, 0, 0);
    const summary =
      `OpenAgent: ${plural(found.length, 'change')} to review` +
      (lost > 0 ? ` (${lost} changed since, can only be kept)` : '');
    const lenses = [
      new vscode.CodeLens(top, { title: summary, command: '' }),
      new vscode.CodeLens(top, {
        title: 'Keep All',
        command: REVIEW_COMMANDS.keepFile,
        arguments: [file],
      }),
      new vscode.CodeLens(top, {
        title: 'Undo All',
        command: REVIEW_COMMANDS.undoFile,
        arguments: [file],
      }),
    ];
    found.forEach((place, position) => {
      const line = Math.min(place.line!, document.lineCount - 1);
      const range = new vscode.Range(line, 0, line, 0);
      const target: SessionReviewTarget = { session, turn: place.turn, path: relative, hunks: [place.hunk.index] };
      lenses.push(
        new vscode.CodeLens(range, { title: describe(place, position, found.length), command: '' }),
        new vscode.CodeLens(range, { title: '$(check) Keep', command: REVIEW_COMMANDS.keepHunk, arguments: [target] }),
        new vscode.CodeLens(range, {
          title: '$(discard) Undo',
          command: REVIEW_COMMANDS.undoHunk,
          arguments: [target],
        }),
      );
    });
    return lenses;
  }

  private refresh(): void {
    this.lensesChanged.fire();
    for (const editor of vscode.window.visibleTextEditors) this.decorate(editor);
    this.updateContextKey();
  }

  private decorate(editor: vscode.TextEditor): void {
    const added: vscode.DecorationOptions[] = [];
    const removed: vscode.DecorationOptions[] = [];
    for (const place of this.places(editor.document)) {
      if (place.line === undefined) continue;
      const hover = removedHover(place);
      if (place.hunk.added.length > 0) {
        const end = Math.min(place.line + place.hunk.added.length, editor.document.lineCount) - 1;
        added.push({ range: new vscode.Range(place.line, 0, end, 0), ...(hover ? { hoverMessage: hover } : {}) });
      } else {
        // Only lines removed: marked on the line that now follows them.
        const line = Math.min(place.line, editor.document.lineCount - 1);
        removed.push({
          range: new vscode.Range(line, 0, line, 0),
          ...(hover ? { hoverMessage: hover } : {}),
          renderOptions: { after: { contentText: `⌫ ${plural(place.hunk.removed.length, 'line')} removed above` } },
        });
      }
    }
    editor.setDecorations(this.added, added);
    editor.setDecorations(this.removed, removed);
  }

  private updateContextKey(): void {
    const editor = vscode.window.activeTextEditor;
    const pending = editor ? this.places(editor.document).length > 0 : false;
    void vscode.commands.executeCommand('setContext', REVIEW_CONTEXT_KEY, pending);
  }
}

/** "Change 1 of 2 (turn 3, +2 −1)". */
function describe(place: HunkPlace, position: number, count: number): string {
  const { removed, added } = place.hunk;
  const lines = [added.length ? `+${added.length}` : '', removed.length ? `−${removed.length}` : ''].filter(Boolean);
  return `Change ${position + 1} of ${count} (turn ${place.turn}, ${lines.join(' ')})`;
}

/** The lines the hunk replaced, as a hover (none when it only added lines). */
function removedHover(place: HunkPlace): vscode.MarkdownString | undefined {
  if (place.hunk.removed.length === 0) return undefined;
  const shown = place.hunk.removed.slice(0, 20).join('\n');
  const more = place.hunk.removed.length > 20 ? `\n… ${place.hunk.removed.length - 20} more lines` : '';
  const hover = new vscode.MarkdownString(`**Before the agent's edit** (Undo puts it back):`);
  hover.appendCodeblock(`${shown}${more}`);
  return hover;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
