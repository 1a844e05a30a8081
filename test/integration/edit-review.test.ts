/**
 * Undoing the agent's hunks through VS Code: the undo is one WorkspaceEdit of the hunk's lines
 * that the user's Ctrl+Z takes back (and the review notices, so the model is not told of an undo
 * that is gone); a document with unsaved changes keeps them and stays unsaved; CRLF survives; a
 * created file is deleted; a hunk the user typed into is refused; and the file shows its hunks
 * with Keep / Undo lenses that follow the decisions.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EditReview } from '../../src/core/review/edit-review';
import { ReviewEditor } from '../../src/host/review/review-editor';
import { oneSessionReviews } from '../../src/host/review/session-reviews';
import { VscodeReviewedFiles } from '../../src/host/review/vscode-reviewed-files';
import { ReviewEvents } from '../fixtures/review-events';
import { activateOpenAgent, closeAllEditors, waitFor } from './helpers';

const BEFORE = [
  'export function area(width, height) {',
  '  return width * height;',
  '}',
  '',
  '',
  '',
  '',
  'export const unit = "m";',
  '',
].join('\n');
const AFTER = BEFORE.replace('return width * height;', 'return Math.abs(width * height);').replace('"m"', '"cm"');

describe('edit review through VS Code', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const folder = path.join(root, 'review');
  let count = 0;
  /** A file the agent's turn left as `after`, and the review of that turn over the real editor. */
  function reviewed(after: string, before: string | null, name = `file-${++count}.js`) {
    const absolute = path.join(folder, name);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(absolute, after);
    const session = new ReviewEvents();
    session.turn(1, [{ path: `review/${name}`, before, after }]);
    const review = new EditReview({ session, files: new VscodeReviewedFiles(), root: () => root });
    return { absolute, relative: `review/${name}`, session, review };
  }
  const show = async (absolute: string) =>
    vscode.window.showTextDocument(await vscode.workspace.openTextDocument(absolute), { preview: false });

  const files = () => vscode.workspace.getConfiguration('files');
  let autoSave: string | undefined;
  before(async () => {
    await activateOpenAgent();
    // Whether unsaved work stays unsaved shows only with auto save off (VS Code for the web saves after a delay).
    autoSave = files().inspect<string>('autoSave')?.globalValue;
    await files().update('autoSave', 'off', vscode.ConfigurationTarget.Global);
  });
  after(() => files().update('autoSave', autoSave, vscode.ConfigurationTarget.Global));
  afterEach(async () => {
    // Nothing left unsaved: closing a dirty editor would ask (a modal the next tests would wait behind).
    for (const document of vscode.workspace.textDocuments)
      if (document.isDirty && document.uri.fsPath.startsWith(folder)) await document.save();
    await closeAllEditors();
  });

  it('undoes a hunk as one WorkspaceEdit that Ctrl+Z takes back, and then does not tell the model', async () => {
    const { absolute, relative, session, review } = reviewed(AFTER, BEFORE);
    const editor = await show(absolute);
    const outcome = await review.undo({ turn: 1, path: relative, hunks: [0] });
    assert.deepEqual([outcome.undone, outcome.refused], [1, []]);
    const undone = AFTER.replace('Math.abs(width * height)', 'width * height');
    assert.equal(editor.document.getText(), undone);
    assert.equal(editor.document.isDirty, false, 'a saved document is saved again');
    assert.equal(fs.readFileSync(absolute, 'utf8'), undone);

    await vscode.commands.executeCommand('undo');
    await waitFor(() => editor.document.getText() === AFTER, 'Ctrl+Z to bring the agent’s line back');
    await review.recheck(relative);
    assert.deepEqual(
      review.state.file(1, relative)?.hunks.map((hunk) => hunk.state),
      ['pending', 'pending'],
    );
    assert.deepEqual(await session.drain(), [], 'the model is not told of an undo that is gone');
  });

  it('keeps the user’s unsaved changes (and leaves them unsaved) and refuses a hunk they typed into', async () => {
    const { absolute, relative, review } = reviewed(AFTER, BEFORE);
    const editor = await show(absolute);
    // Typed into the second hunk's line, not saved.
    await editor.edit((edit) => edit.insert(new vscode.Position(7, 24), ' // mine'));
    const typed = editor.document.getText();
    assert.ok(editor.document.isDirty);
    const outcome = await review.undo({ turn: 1, path: relative });
    assert.equal(outcome.undone, 1);
    assert.match(outcome.refused[0]!.reason, /no longer as the agent left them/);
    assert.equal(editor.document.getText(), typed.replace('Math.abs(width * height)', 'width * height'));
    assert.equal(editor.document.isDirty, true, 'the user’s unsaved work is not saved behind their back');
    assert.equal(fs.readFileSync(absolute, 'utf8'), AFTER, 'nothing written to disk');
  });

  it('keeps CRLF line endings on disk', async () => {
    const { absolute, relative, review } = reviewed(AFTER.replace(/\n/g, '\r\n'), BEFORE.replace(/\n/g, '\r\n'));
    const document = await vscode.workspace.openTextDocument(absolute);
    assert.equal(document.eol, vscode.EndOfLine.CRLF);
    assert.equal((await review.undo({ turn: 1, path: relative })).undone, 2);
    assert.equal(fs.readFileSync(absolute, 'utf8'), BEFORE.replace(/\n/g, '\r\n'));
  });

  it('deletes a file the agent created when its hunk is undone', async () => {
    const { absolute, relative, session, review } = reviewed('export const created = true;\n', null);
    await show(absolute);
    assert.equal((await review.undo({ turn: 1, path: relative })).undone, 1);
    assert.equal(fs.existsSync(absolute), false);
    assert.match((await session.drain())[0]!, /deleted \(you had created it\)/);
  });

  it('shows Keep / Undo above each hunk and Keep All / Undo All on top, following the decisions', async () => {
    const { absolute, relative, review } = reviewed(AFTER, BEFORE);
    const marks = new ReviewEditor(oneSessionReviews(review, () => root));
    try {
      const editor = await show(absolute);
      const lenses = async () =>
        (
          (await vscode.commands.executeCommand<vscode.CodeLens[]>(
            'vscode.executeCodeLensProvider',
            editor.document.uri,
          )) ?? []
        )
          .filter((lens) => lens.command?.title)
          .map((lens) => `${lens.range.start.line}:${lens.command!.title}`);
      await waitFor(async () => (await lenses()).includes('7:$(discard) Undo'), 'lenses on both hunks');
      assert.deepEqual(await lenses(), [
        '0:OpenAgent: 2 changes to review',
        '0:Keep All',
        '0:Undo All',
        '1:Change 1 of 2 (turn 1, +1 −1)',
        '1:$(check) Keep',
        '1:$(discard) Undo',
        '7:Change 2 of 2 (turn 1, +1 −1)',
        '7:$(check) Keep',
        '7:$(discard) Undo',
      ]);
      await review.keep({ turn: 1, path: relative, hunks: [0] });
      await waitFor(async () => !(await lenses()).includes('1:$(check) Keep'), 'the kept hunk’s lenses to go');
      assert.deepEqual((await lenses()).slice(0, 1), ['0:OpenAgent: 1 change to review']);
      await review.undo({ turn: 1, path: relative, hunks: [1] });
      await waitFor(async () => (await lenses()).length === 0, 'no lenses once everything is decided');
    } finally {
      marks.dispose();
    }
  });
});
