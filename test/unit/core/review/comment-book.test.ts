import assert from 'node:assert/strict';
import { CommentBook, type ReviewComment } from '../../../../src/core/review/comment-book';
import { reviewCommentsMessage } from '../../../../src/core/review/comment-message';

const LINES = ['function greet(name) {', '  return "Hello, " + name;', '}', 'module.exports = { greet };'];

function made(result: ReturnType<CommentBook['add']>): ReviewComment {
  assert.ok(!('refused' in result), 'the comment is added');
  return result;
}

describe('review comments to the agent', () => {
  it('the message names the file, the lines (1-based) and quotes the code they hold', () => {
    const { text, included } = reviewCommentsMessage([
      {
        path: 'src/greet.js',
        startLine: 1,
        endLine: 1,
        body: 'Use a template string here',
        code: [LINES[1]!],
        status: 'current',
      },
      {
        path: 'src/greet.js',
        startLine: 0,
        endLine: 2,
        body: 'Add a JSDoc',
        code: LINES.slice(0, 3),
        status: 'outdated',
      },
    ]);
    assert.equal(included, 2);
    assert.match(text, /Review comments from the user on your changes: 2 comments/);
    assert.ok(
      text.includes(`Comment 1: src/greet.js line 2\n> Use a template string here\n\`\`\`\n${LINES[1]}\n\`\`\``),
      text,
    );
    assert.ok(text.includes('Comment 2: src/greet.js lines 1-3 (outdated: these lines have changed since'), text);
  });

  it('a comment is made on the lines of a file, sent with their code now, answered when the turn ends', () => {
    const book = new CommentBook();
    const comment = made(
      book.add({
        session: 's1',
        path: 'src/greet.js',
        absolute: '/w/src/greet.js',
        range: { startLine: 3, endLine: 3 },
        body: 'Export a default too',
        lines: LINES,
      }),
    );
    assert.deepEqual(comment.code, [LINES[3]]);
    // Two lines added above: the comment follows its line.
    const now = ['// header', '', ...LINES];
    book.changed(
      '/w/src/greet.js',
      [{ startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0, text: '// header\n\n' }],
      now,
    );
    assert.deepEqual(book.get(comment.id)!.range, { startLine: 5, endLine: 5 });

    const [outgoing, ...others] = book.send(() => now);
    assert.equal(others.length, 0);
    assert.equal(outgoing!.session, 's1');
    assert.ok(outgoing!.text.includes('src/greet.js line 6\n> Export a default too'), outgoing!.text);
    assert.equal(book.get(comment.id)!.state, 'sent');
    assert.deepEqual(
      book.send(() => now),
      [],
      'a sent comment is not sent twice',
    );

    // Another run's end does not answer it; the run its message started does.
    book.runEnded('s1', 'done');
    assert.equal(book.get(comment.id)!.state, 'sent');
    book.prompted('s1', outgoing!.text);
    assert.equal(book.get(comment.id)!.state, 'received');
    book.runEnded('s1', 'done');
    assert.equal(book.get(comment.id), undefined, 'answered: it goes');
  });

  it('a stopped or failed turn, or a refused send, gives the comments back to send again', () => {
    const book = new CommentBook();
    const comment = made(
      book.add({
        session: 's1',
        path: 'a.js',
        absolute: '/w/a.js',
        range: { startLine: 0, endLine: 0 },
        body: 'x',
        lines: LINES,
      }),
    );
    const [first] = book.send(() => LINES);
    book.failed(first!);
    assert.equal(book.get(comment.id)!.state, 'draft');
    const [second] = book.send(() => LINES);
    book.prompted('s1', second!.text);
    book.runEnded('s1', 'stopped');
    assert.equal(book.get(comment.id)!.state, 'draft');
  });

  it('each session gets the comments on its own changes', () => {
    const book = new CommentBook();
    book.add({
      session: 'here',
      path: 'a.js',
      absolute: '/w/a.js',
      range: { startLine: 0, endLine: 0 },
      body: 'in the workspace',
      lines: LINES,
    });
    book.add({
      session: 'tree',
      path: 'a.js',
      absolute: '/t/a.js',
      range: { startLine: 1, endLine: 1 },
      body: 'in the worktree',
      lines: LINES,
    });
    const outgoing = book.send(() => LINES);
    assert.deepEqual(
      outgoing.map((item) => [
        item.session,
        item.text.includes('in the workspace'),
        item.text.includes('in the worktree'),
      ]),
      [
        ['here', true, false],
        ['tree', false, true],
      ],
    );
  });
});
