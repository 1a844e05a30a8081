/**
 * A real repository in a temporary folder for the worktree tests: a workspace with a few
 * committed files, and a base folder for worktrees beside it (outside the workspace).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitWorktrees } from '../../../../src/node/worktrees/git-worktrees';

export interface RepoRig {
  /** The folder holding everything of this rig. */
  folder: string;
  workspace: string;
  baseFolder: string;
  worktrees: GitWorktrees;
  git(args: string[], cwd?: string): string;
  write(relative: string, text: string, root?: string): void;
  read(relative: string, root?: string): string | undefined;
}

const made: string[] = [];
// Once, after every test file that uses rigs (a root hook: this module is loaded once).
after(() => {
  for (const folder of made.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

export function makeRig(options: { commit?: boolean; parent?: string } = {}): RepoRig {
  const parent = options.parent ?? os.tmpdir();
  fs.mkdirSync(parent, { recursive: true });
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'openagent-worktrees-')));
  made.push(folder);
  const workspace = path.join(folder, 'repo');
  const baseFolder = path.join(folder, 'worktrees');
  fs.mkdirSync(workspace);
  const git = (args: string[], cwd = workspace) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const write = (relative: string, text: string, root = workspace) => {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  const read = (relative: string, root = workspace) => {
    const file = path.join(root, relative);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  };
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.name', 'Test']);
  git(['config', 'user.email', 'test@example.com']);
  if (options.commit ?? true) {
    write('README.md', 'hello\n');
    write('src/app.ts', 'export const answer = 1;\n');
    write('.gitignore', 'node_modules/\n*.log\n');
    git(['add', '-A']);
    git(['commit', '-q', '-m', 'first']);
  }
  const worktrees = new GitWorktrees({ workspaceRoot: workspace, baseFolder: () => baseFolder });
  return { folder, workspace, baseFolder, worktrees, git, write, read };
}

/** The test process's environment without GIT_* (a hook running the tests must not leak in). */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
}
