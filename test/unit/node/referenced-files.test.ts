/**
 * The workspace files a hook or MCP server runs, as the fingerprint of an allow covers them:
 * scripts found from the command's words (variables for the root put in), links followed only
 * while inside, FIFOs and devices named and never opened, huge files by size and times, missing
 * scripts named, hashes cached by inode and times.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_HASHED_BYTES, MAX_HASHED_FILES, ReferencedFiles, shellWords } from '../../../src/node/referenced-files';

describe('referenced files (what an allow covers besides the command line)', () => {
  let base: string;
  let root: string;
  let files: ReferencedFiles;
  const write = (relative: string, text: string, mode = 0o644) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text, { mode });
  };
  const hook = (command: string, cwd?: string) =>
    files.examine({ root, cwd, lines: [command], variables: { CLAUDE_PROJECT_DIR: root } });

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-referenced-')));
    root = path.join(base, 'repo');
    fs.mkdirSync(root);
    files = new ReferencedFiles();
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('a script run by bash, by path or through $CLAUDE_PROJECT_DIR counts by content; a changed script is another entry', async () => {
    write('.claude/hooks/check.sh', 'echo one\n');
    write('.claude/hooks/check.py', 'print(1)\n');
    const before = await hook(
      'bash .claude/hooks/check.sh && "$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py && ${CLAUDE_PROJECT_DIR}/.claude/hooks/check.sh',
    );
    assert.deepEqual(
      before.files.map((file) => `${file.state} ${file.path}`),
      ['file .claude/hooks/check.sh', 'file .claude/hooks/check.py'],
    );
    assert.match(before.entries[0]!, /^file \.claude\/hooks\/check\.sh [0-9a-f]{64}$/);
    write('.claude/hooks/check.sh', 'echo two\n');
    const after = await hook('bash .claude/hooks/check.sh');
    assert.notEqual(after.entries[0], before.entries[0]);
    assert.ok(!after.entries.join('\n').includes('echo'), 'entries hold hashes, never content');
  });

  it('relative words count from the working folder; an extensionless script given to an interpreter counts', async () => {
    write('tools/check', 'exit 0\n');
    const set = await hook('bash check', 'tools');
    assert.deepEqual(
      set.entries.map((entry) => entry.split(' ').slice(0, 2).join(' ')),
      ['file tools/check', 'folder tools'],
    );
  });

  it('data and outputs do not count: touch RAN, a > target, a --db file; executables and scripts by extension do', async () => {
    write('RAN', '');
    write('log.txt', 'x');
    write('data.db', 'x');
    write('bin/tool', '#!/bin/sh\n', 0o755);
    write('scripts/x.ts', 'x');
    const set = await hook('touch RAN; echo hi > log.txt; bin/tool --db data.db; npx tsx scripts/x.ts; cat < data.db');
    assert.deepEqual(
      set.files.map((file) => file.path),
      ['bin/tool', 'scripts/x.ts'],
    );
  });

  it('a missing script is named, so creating it after the allow is a change', async () => {
    const before = await hook('bash .claude/hooks/later.sh');
    assert.deepEqual(before.entries, ['missing .claude/hooks/later.sh']);
    write('.claude/hooks/later.sh', 'echo created\n');
    assert.match((await hook('bash .claude/hooks/later.sh')).entries[0]!, /^file /);
  });

  it('a link inside is followed; a link leading out is named with its target, which is not read', async () => {
    write('real/check.sh', 'echo in\n');
    fs.symlinkSync(path.join(root, 'real/check.sh'), path.join(root, 'inside.sh'));
    fs.writeFileSync(path.join(base, 'secret.sh'), 'echo out\n');
    fs.symlinkSync(path.join(base, 'secret.sh'), path.join(root, 'outside.sh'));
    const reads = files.reads;
    const set = await hook('bash inside.sh; bash outside.sh; bash ../secret.sh; bash /etc/hostname');
    assert.match(set.entries[0]!, /^file inside\.sh [0-9a-f]{64}$/);
    assert.equal(set.entries[1], `outside outside.sh -> ${path.join(base, 'secret.sh')}`);
    assert.equal(set.entries.length, 2, 'paths outside the workspace are not the repository’s');
    assert.equal(files.reads - reads, 1, 'only the file inside was read');
  });

  it('held: a FIFO, a link to /dev/zero and a folder are named, never opened (no hang)', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe.sh')]);
    fs.symlinkSync('/dev/zero', path.join(root, 'zero.sh'));
    fs.mkdirSync(path.join(root, 'folder.sh'));
    const started = Date.now();
    const set = await hook('bash pipe.sh; bash folder.sh; bash zero.sh');
    assert.deepEqual(set.entries, ['fifo pipe.sh', 'folder folder.sh', 'outside zero.sh -> /dev/zero']);
    assert.ok(Date.now() - started < 30_000);
  });

  it('a file over the cap counts by size and times, unread; past the count, files are named unread', async () => {
    const huge = path.join(root, 'huge.js');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, MAX_HASHED_BYTES + 1);
    const set = await files.examine({ root, argv: ['node', 'huge.js'] });
    assert.match(set.entries[0]!, new RegExp(`^large huge\\.js ${MAX_HASHED_BYTES + 1}:\\d+:\\d+$`));
    assert.equal(files.reads, 0);
    const names = Array.from({ length: MAX_HASHED_FILES + 3 }, (_, index) => `s${index}.sh`);
    for (const name of names) write(name, name);
    const many = await files.examine({ root, argv: ['cat', ...names] });
    assert.equal(many.entries.filter((entry) => entry.startsWith('file ')).length, MAX_HASHED_FILES);
    assert.equal(many.entries.filter((entry) => entry.startsWith('unread ')).length, 3);
  });

  it('hashes are cached by inode and times: a hook on every tool call reads its script once', async () => {
    write('check.sh', 'echo 1\n');
    for (let run = 0; run < 5; run++) await hook('bash check.sh');
    assert.equal(files.reads, 1);
    write('check.sh', 'echo 2\n');
    await hook('bash check.sh');
    assert.equal(files.reads, 2, 'a write is a new version');
  });

  it('values: NODE_OPTIONS names the file it requires; a variable still unresolved is not followed', async () => {
    write('x.js', 'x');
    write('y', 'y');
    const set = await files.examine({ root, values: ['--require ./y --max-old-space-size=4096', '$HOME/x.js'] });
    assert.deepEqual(
      set.entries.map((entry) => entry.split(' ')[1]),
      ['y'],
    );
    assert.deepEqual(
      shellWords('a "$CLAUDE_PROJECT_DIR/b c.sh" $OTHER/d.sh', { CLAUDE_PROJECT_DIR: '/w s' }).map((word) => word.text),
      ['a', '/w s/b c.sh', '$OTHER/d.sh'],
    );
    // What the analyser will not vouch for is still read for words.
    assert.ok(
      shellWords('if true; then bash .claude/x.sh; fi', {}).some((word) => word.text === '.claude/x.sh'),
      'a group is split crudely',
    );
  });

  it('a working folder that is a link: re-pointing it is another fingerprint, even where it leads out', async () => {
    fs.mkdirSync(path.join(base, 'one'));
    fs.mkdirSync(path.join(base, 'two'));
    fs.symlinkSync(path.join(base, 'one'), path.join(root, 'hooks'));
    const before = await hook('bash ./check', 'hooks');
    fs.rmSync(path.join(root, 'hooks'));
    fs.symlinkSync(path.join(base, 'two'), path.join(root, 'hooks'));
    const after = await hook('bash ./check', 'hooks');
    assert.notDeepEqual(after.entries, before.entries);
    assert.match(after.entries.join('\n'), /^folder outside .*two$/m);
  });
});
