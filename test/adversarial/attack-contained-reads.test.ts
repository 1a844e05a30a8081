/**
 * Issue 32, items 6 and 9, attacked from the read side: every other place the product reads or
 * lists workspace files by path. A child process swaps things under the tools as fast as it can
 * — the folder `src` for a link to a folder outside, and the file `notes.txt` for a link to the
 * workspace's `.env` — while the product's own tools (list_files, glob, read_file, search_files
 * with the ripgrep adapter the CLI builds) run. Nothing outside may ever be listed or shown, and
 * `.env` may never be shown unasked.
 *
 * Counted, not timed: the loop runs until enough calls were made *and* the swapper swapped
 * enough times; the deadline is only a guard against a hang. Before the fixes this file guards,
 * 450 of 12,000 listings named outside files, and read_file gave `.env` 112 times in 6,000 calls.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createSearchTool } from '../../src/core/tools/builtin/code-tools';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import { runToolSafely } from '../unit/core/tools/run-tool';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { findRipgrep, RipgrepSearch } from '../../src/node/ripgrep-search';

const CALLS = 2_400;
const SWAPS = 200;
const DEADLINE_MS = 6 * 60_000;
const OUTSIDE = 'OUTSIDE-MARKER-51c2';
const ENV = 'ENV-MARKER-7d0e';

/** Swaps `src` for a link to outside and `notes.txt` for a link to `.env`, and back, forever. */
const SWAPPER = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const [root, outside] = process.argv.slice(1);
const at = (name) => path.join(root, name);
fs.symlinkSync(outside, at('src-link'));
fs.symlinkSync('.env', at('notes-link'));
const attempt = (step) => { try { step(); return true; } catch { return false; } };
let swaps = 0;
for (;;) {
  attempt(() => fs.renameSync(at('src'), at('src-parked')));
  const linked = attempt(() => fs.renameSync(at('src-link'), at('src')));
  attempt(() => fs.renameSync(at('notes.txt'), at('notes-parked')));
  attempt(() => fs.renameSync(at('notes-link'), at('notes.txt')));
  if (linked) attempt(() => fs.renameSync(at('src'), at('src-link')));
  attempt(() => fs.renameSync(at('notes.txt'), at('notes-link')));
  attempt(() => fs.renameSync(at('src-parked'), at('src')));
  attempt(() => fs.renameSync(at('notes-parked'), at('notes.txt')));
  if (linked && ++swaps % 25 === 0) process.stdout.write(swaps + '\n');
}
`;

const run = runToolSafely;

const hasRipgrep = spawnSync(findRipgrep([]), ['--version']).status === 0;

describe('adversarial: listings, reads and searches while things are swapped for links', function () {
  this.timeout(DEADLINE_MS + 60_000);
  let swapper: ChildProcess | undefined;

  afterEach(() => {
    if (swapper?.exitCode === null) swapper.kill('SIGKILL');
  });

  it(`no outside name or content and no .env content, over ${CALLS} calls and ${SWAPS}+ swaps`, async function () {
    if (!hasRipgrep) this.skip();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-read-races-')));
    const root = path.join(base, 'workspace');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(root, 'src', 'sub'), { recursive: true });
    fs.mkdirSync(path.join(outside, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'in.txt'), 'needle inside\n');
    fs.writeFileSync(path.join(root, 'src', 'sub', 'deep.txt'), 'needle deep inside\n');
    fs.writeFileSync(path.join(root, 'notes.txt'), 'needle notes\n');
    fs.writeFileSync(path.join(root, '.env'), `needle ${ENV}\n`);
    // The same names outside, and names only outside: a listing or search through the link shows them.
    fs.writeFileSync(path.join(outside, 'in.txt'), `needle ${OUTSIDE}\n`);
    fs.writeFileSync(path.join(outside, `${OUTSIDE}.txt`), `needle ${OUTSIDE}\n`);
    fs.writeFileSync(path.join(outside, 'sub', 'deep.txt'), `needle ${OUTSIDE}\n`);
    fs.writeFileSync(path.join(outside, 'sub', `${OUTSIDE}-deep.txt`), 'x\n');

    const workspace = new NodeWorkspace(root);
    // As the CLI builds it (compose.ts): matches are checked against the workspace's files.
    const search = new RipgrepSearch(
      findRipgrep([]),
      () => [],
      () => root,
    );
    const tools = [...createFileTools(workspace), createSearchTool(search, workspace)];
    const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
    const calls: Array<[string, unknown]> = [
      ['list_files', { path: 'src', recursive: true }],
      ['list_files', { path: '.', recursive: true }],
      ['glob', { pattern: '**/*.txt' }],
      ['glob', { pattern: '*.txt', path: 'src/sub' }],
      ['read_file', { path: 'notes.txt' }],
      ['read_file', { path: 'src/sub/deep.txt' }],
      ['search_files', { pattern: 'needle', path: 'src' }],
      ['search_files', { pattern: 'needle', path: 'src/in.txt' }],
      ['search_files', { pattern: 'needle', path: 'notes.txt' }],
      ['search_files', { pattern: 'needle' }],
    ];

    swapper = spawn(process.execPath, ['-e', SWAPPER, root, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
    let swaps = 0;
    swapper.stdout!.on('data', (chunk: Buffer) => {
      const last = chunk.toString().trim().split('\n').pop();
      if (last) swaps = Number(last);
    });

    const deadline = Date.now() + DEADLINE_MS;
    let made = 0;
    let answered = 0;
    const leaked: string[] = [];
    try {
      while (made < CALLS || swaps < SWAPS) {
        assert.ok(Date.now() < deadline, `guard: only ${made} calls and ${swaps} swaps before the deadline`);
        assert.equal(swapper.exitCode, null, 'the swapper stopped');
        const [name, input] = calls[made % calls.length]!;
        made += 1;
        const result = await run(tool(name), input);
        if (!result.isError) answered += 1;
        if (result.output.includes(OUTSIDE) || result.output.includes(ENV))
          leaked.push(`${name} ${JSON.stringify(input)}: ${result.output}`);
      }
    } finally {
      swapper.kill('SIGKILL');
    }

    assert.deepEqual(leaked.slice(0, 5), [], `${leaked.length} calls showed what is outside or in .env`);
    // The race was real: calls went through between swaps, and many were refused.
    assert.ok(answered > 0 && answered < made, `answered ${answered} of ${made}`);
  });
});
