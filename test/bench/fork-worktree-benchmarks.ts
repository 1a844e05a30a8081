/**
 * Issue 33: "Fork from here" into a new worktree, through the product (forkIntoWorktree: the
 * conversation read, the files planned and read, GitWorktrees.create, the files written, the
 * conversation forked in the store) versus doing it by hand: a plain `git worktree add -b` and
 * copying the same files in. On a repository of 10,000 files and a 1,000-message conversation
 * whose turns changed 100 of them. Alternating, after a warm-up; medians; nothing fails on speed.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { redactValue } from '../../src/core/llm/redact';
import type { StoredMessage } from '../../src/core/ports';
import { SessionForks } from '../../src/core/session/session-forks';
import { forkIntoWorktree } from '../../src/core/session/worktree-fork';
import { NodeForkFiles } from '../../src/node/worktrees/fork-files';
import { GitWorktrees } from '../../src/node/worktrees/git-worktrees';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { longConversation } from '../fixtures/long-conversation';
import { median } from './stats';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');
const FILES = 10_000;
const CHANGED = 100;
const MESSAGES = 1_000;
const RUNS = 5;

export interface ForkWorktreeCost {
  files: number;
  changed: number;
  messages: number;
  runs: number;
  byHandMs: number;
  productMs: number;
}

export async function measureForkIntoWorktree(): Promise<ForkWorktreeCost> {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-fork-worktree-')));
  const repository = path.join(folder, 'repo');
  const baseFolder = path.join(folder, 'worktrees');
  fs.mkdirSync(baseFolder);
  fs.mkdirSync(repository);
  for (let index = 0; index < FILES; index++) {
    const sub = path.join(repository, `src/module-${index % 100}`);
    if (index < 100) fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `file-${index}.ts`), `export const value${index} = ${index};\n`);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repository, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'files');
  // The conversation's changes, in the workspace (uncommitted), named by one turn's report.
  const changed = Array.from({ length: CHANGED }, (_, index) => `src/module-${index % 100}/file-${index}.ts`);
  for (const file of changed) fs.writeFileSync(path.join(repository, file), `// changed by the agent\n`);

  const { store } = await SqlJsStore.open({
    directory: path.join(folder, 'store'),
    wasmPath: WASM,
    redact: redactValue,
  });
  await store.saveConversation({ id: 'long', title: 'long', createdAt: 0, updatedAt: 0, settings: {} });
  const messages = longConversation('long', MESSAGES / 5, ' lorem ipsum'.repeat(25));
  for (const message of messages) await store.putMessage(message);
  const last = messages.at(-1)!.seq;
  const report: StoredMessage = {
    id: `long-${last + 1}`,
    conversationId: 'long',
    seq: last + 1,
    role: 'event',
    content: { type: 'files_changed', turn: 1, files: changed.map((file) => ({ path: file, change: 'modified' })) },
    createdAt: 0,
  };
  await store.putMessage(report);
  let ids = 0;
  const forks = new SessionForks({
    store: async () => store,
    now: () => Date.now(),
    newId: () => `fork-${ids++}`,
    currentId: () => undefined,
    isBusy: () => false,
    flush: async () => undefined,
    checkpoints: () => undefined,
    open: async () => true,
    submit: async () => undefined,
    tell: () => undefined,
  });
  const worktrees = new GitWorktrees({ workspaceRoot: repository, baseFolder: () => baseFolder });
  const files = new NodeForkFiles(repository);
  let counter = 0;
  const byHand = () => {
    const name = `plain-${counter++}`;
    const target = path.join(baseFolder, name);
    const started = process.hrtime.bigint();
    git('worktree', 'add', '-q', '-b', name, target, 'HEAD');
    for (const file of changed) fs.copyFileSync(path.join(repository, file), path.join(target, file));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    git('worktree', 'remove', '--force', target);
    git('branch', '-D', name);
    return ms;
  };
  const product = async () => {
    const started = process.hrtime.bigint();
    const outcome = await forkIntoWorktree(
      { forks, worktrees, files },
      { name: `fork ${counter++}`, cutSeq: last + 1, conversationId: 'long' },
    );
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (outcome.status !== 'forked' || outcome.written.length !== CHANGED) throw new Error(JSON.stringify(outcome));
    await worktrees.discard(outcome.worktree);
    return ms;
  };
  try {
    byHand();
    await product();
    const byHandTimes: number[] = [];
    const productTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      byHandTimes.push(byHand());
      productTimes.push(await product());
    }
    return {
      files: FILES,
      changed: CHANGED,
      messages: MESSAGES,
      runs: RUNS,
      byHandMs: median(byHandTimes),
      productMs: median(productTimes),
    };
  } finally {
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

if (require.main === module)
  void measureForkIntoWorktree().then((cost) =>
    console.log(
      `Fork into a new worktree: ${cost.files} files, ${cost.changed} changed, ${cost.messages} messages, ${cost.runs} runs: by hand (git worktree add + copy) ${cost.byHandMs.toFixed(1)} ms, product ${cost.productMs.toFixed(1)} ms, ratio ${(cost.productMs / cost.byHandMs).toFixed(2)}`,
    ),
  );
