/**
 * Issue 33: making a session worktree through the product (GitWorktrees.create: the safety
 * options, the repository's configuration read, the dirty-tree check, the name search, the
 * record) versus a plain `git worktree add -b <branch> <folder> HEAD`, on a repository of
 * 10,000 files. Alternating, after warm-ups; medians. Each worktree is removed after it is
 * timed (not timed). Target: ≤ 1.2×.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitWorktrees } from '../../src/node/worktrees/git-worktrees';

export interface WorktreeAddCost {
  files: number;
  runs: number;
  plainMs: number;
  productMs: number;
}

const FILES = 10_000;
const RUNS = 5;
const WARMUPS = 1;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A repository of `files` small files in 100 folders, one commit. */
function makeRepository(root: string, files: number): void {
  fs.mkdirSync(root, { recursive: true });
  for (let index = 0; index < files; index++) {
    const folder = path.join(root, `src/module-${index % 100}`);
    if (index < 100) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `file-${index}.ts`), `export const value${index} = ${index};\n`);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'files');
}

export async function measureWorktreeAdd(): Promise<WorktreeAddCost> {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-worktrees-')));
  const repository = path.join(folder, 'repo');
  const baseFolder = path.join(folder, 'worktrees');
  fs.mkdirSync(baseFolder);
  makeRepository(repository, FILES);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repository, stdio: 'ignore' });
  const worktrees = new GitWorktrees({ workspaceRoot: repository, baseFolder: () => baseFolder });
  let counter = 0;
  const plain = () => {
    const name = `plain-${counter++}`;
    const started = process.hrtime.bigint();
    git('worktree', 'add', '-q', '-b', name, path.join(baseFolder, name), 'HEAD');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    git('worktree', 'remove', '--force', path.join(baseFolder, name));
    git('branch', '-D', name);
    return ms;
  };
  const product = async () => {
    const started = process.hrtime.bigint();
    const { worktree } = await worktrees.create({ name: `product ${counter++}` });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await worktrees.discard(worktree);
    return ms;
  };
  try {
    for (let i = 0; i < WARMUPS; i++) {
      plain();
      await product();
    }
    const plainTimes: number[] = [];
    const productTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      plainTimes.push(plain());
      productTimes.push(await product());
    }
    return { files: FILES, runs: RUNS, plainMs: median(plainTimes), productMs: median(productTimes) };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

if (require.main === module)
  void measureWorktreeAdd().then((cost) =>
    console.log(
      `${cost.files} files, ${cost.runs} runs: plain ${cost.plainMs.toFixed(1)} ms, product ${cost.productMs.toFixed(1)} ms, ratio ${(cost.productMs / cost.plainMs).toFixed(2)}`,
    ),
  );
