/**
 * The agent's edits marked in the editor, where the user reads code: each hunk still to review
 * has its lines highlighted (green, like a diff's added lines; what it removed in a hover and a
 * faded note) and "Keep | Undo" above it, with "Keep All | Undo All" at the top of the file.
 *
 * Why CodeLens and decorations rather than a diff editor: VS Code 1.100 has no API for actions
 * on a diff editor's hunks (only the SCM's quick diff has them, for a repository's changes), and
 * a diff editor shows a copy beside the file. In the file itself, the hunks move with the user's
 * typing, Ctrl+Z undoes an undo, and "Open Diff" is still there for a side-by-side look.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EditReview, HunkPlace } from '../../core/review/edit-review';
import { Disposable } from '../disposable';

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

  constructor(
    private readonly review: EditReview,
    private readonly root: () => string | undefined,
  ) {
    super();
    this._register(vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this));
    const unsubscribe = review.onDidChange(() => this.refresh());
    this._register({ dispose: unsubscribe });
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()));
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.updateContextKey()));
    this._register(
      vscode.workspace.onDidChangeTextDocument((event) => {
        const relative = this.relative(event.document.uri);
        if (!relative || event.contentChanges.length === 0) return;
        // An undo the user took back (Ctrl+Z) is noticed before the model is told of it.
        if (this.review.hasUntold(relative)) void this.review.recheck(relative);
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.refresh(), RETYPE_DELAY_MS);
      }),
    );
    this._register({ dispose: () => this.timer && clearTimeout(this.timer) });
    this.refresh();
  }

  /** The pending hunks of a document, where they are in it now. */
  places(document: vscode.TextDocument): HunkPlace[] {
    const relative = this.relative(document.uri);
    return relative ? this.review.place(relative, document.getText()) : [];
  }

  /** The file's path as the review names it (relative, "/"); undefined outside the workspace. */
  relative(uri: vscode.Uri): string | undefined {
    const root = this.root();
    if (!root || uri.scheme !== 'file') return undefined;
    const relative = path.relative(root, uri.fsPath);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const places = this.places(document);
    if (places.length === 0) return [];
    const relative = this.relative(document.uri)!;
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
        arguments: [{ path: relative }],
      }),
      new vscode.CodeLens(top, {
        title: 'Undo All',
        command: REVIEW_COMMANDS.undoFile,
        arguments: [{ path: relative }],
      }),
    ];
    found.forEach((place, position) => {
      const line = Math.min(place.line!, document.lineCount - 1);
      const range = new vscode.Range(line, 0, line, 0);
      const target = { turn: place.turn, path: relative, hunks: [place.hunk.index] };
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
