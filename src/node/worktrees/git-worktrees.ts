/**
 * The Worktrees port on real git (issue 33): a session's worktree is made with
 * `git worktree add -b openagent/<slug> <base folder>/<slug> <base commit>`, listed from
 * `git worktree list` and the `openagent/*` branches (so a folder deleted or moved by hand, or
 * a branch left by a crash, still shows), and ended by Keep (`git worktree remove`, branch
 * kept) or Discard (branch deleted too). Review and Apply are in worktree-review.ts.
 *
 * Two windows making worktrees at once do not clash: git locks the branch and the worktree
 * records itself, and a name found taken (by the other window, between our look and our
 * command) moves on to the next free one. Every git call goes through GitCommand (no shell,
 * no hooks, no repository-defined programs).
 */
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import {
  SESSION_BRANCH_PREFIX,
  WorktreeError,
  type ApplyOutcome,
  type ApplyRequest,
  type CreatedWorktree,
  type CreateWorktreeRequest,
  type ListedWorktree,
  type Worktree,
  type WorktreeBase,
  type WorktreeChange,
  type Worktrees,
} from '../../core/session/worktree-port';
import { compareVersions, GitCommand } from './git-command';
import { findRepository, readSmall, repositoryPrograms, type RepositoryContext } from './repository-config';
import { realOr } from '../sandbox/quiet-fs';
import { occupied, prepareBaseFolder } from './worktree-folders';
import { readRecord, writeRecord } from './worktree-metadata';
import { displayName, sessionSlug, slugCandidates } from './worktree-names';
import { checkoutNotices, diskFull } from './worktree-notices';
import {
  applyWorktree,
  commitWork,
  worktreeChanges,
  worktreeOriginal,
  worktreeUncommittedDiff,
} from './worktree-review';

/** Names tried before giving up (`slug`, `slug-2` … `slug-100`). */
const NAME_ATTEMPTS = 100;

export interface GitWorktreesOptions {
  /** The workspace folder the window has open (in the repository). */
  workspaceRoot: string;
  /** Where worktree folders are made (outside the workspace): asked each time, it is a setting. */
  baseFolder: () => string;
  /** How git is run (tests pass one with another program or environment). */
  git?: GitCommand;
}

export class GitWorktrees implements Worktrees {
  private readonly git: GitCommand;

  constructor(private readonly options: GitWorktreesOptions) {
    this.git = options.git ?? new GitCommand();
  }

  async create(request: CreateWorktreeRequest): Promise<CreatedWorktree> {
    const context = await this.context();
    const { layout } = context;
    const name = displayName(request.name);
    const [base, dirty] = await Promise.all([
      request.baseCommit !== undefined
        ? this.baseAtCommit(context, request.baseCommit)
        : this.base(context, request.baseBranch),
      this.uncommittedCount(context),
    ]);
    const baseFolder = prepareBaseFolder(this.options.baseFolder(), {
      workspaceRoot: this.options.workspaceRoot,
      repositoryFolders: [layout.workTree, layout.gitDir, layout.commonDir],
    });
    const slug = sessionSlug(request.name);
    const made = await this.addWorktree(context, slug, baseFolder, base.commit, { newBranch: true });
    const worktree = this.worktreeAt(context, made.folder, made.branch, name, base);
    writeRecord(worktree.worktreeGitDir, { name, base, workspaceRoot: layout.workTree });
    const notices: string[] = [];
    if (made.branch !== `${SESSION_BRANCH_PREFIX}${slug}`)
      notices.push(`The branch ${SESSION_BRANCH_PREFIX}${slug} is taken: this session works on ${made.branch}.`);
    if (dirty > 0 && !request.baseBranch && request.baseCommit === undefined)
      notices.push(
        `Started from HEAD (${base.commit.slice(0, 8)}${base.branch ? ` on ${base.branch}` : ''}): your uncommitted changes (${dirty} ${dirty === 1 ? 'file' : 'files'}) are not in it.`,
      );
    notices.push(...checkoutNotices(worktree.root, context.programs));
    return { worktree, notices };
  }

  async list(): Promise<ListedWorktree[]> {
    const context = await this.context();
    const [records, branches, head] = await Promise.all([
      this.worktreeRecords(context),
      this.sessionBranches(context),
      this.headCommit(context),
    ]);
    const listed: ListedWorktree[] = [];
    const seen = new Set<string>();
    for (const record of records) {
      if (!record.branch?.startsWith(SESSION_BRANCH_PREFIX)) continue;
      seen.add(record.branch);
      const saved = record.adminDir ? readRecord(record.adminDir) : undefined;
      const base = saved?.base ?? (await this.forkPoint(context, record.branch, head));
      const present = existsSync(path.join(record.folder, '.git'));
      const worktree: Worktree = {
        name: saved?.name ?? record.branch.slice(SESSION_BRANCH_PREFIX.length),
        root: present ? realpathSync(record.folder) : record.folder,
        branch: record.branch,
        base,
        gitDir: context.layout.commonDir,
        worktreeGitDir: record.adminDir ?? '',
        workspaceRoot: context.layout.workTree,
      };
      listed.push(
        present
          ? { worktree, state: 'ready' }
          : {
              worktree,
              state: 'folder-missing',
              note: `The folder ${record.folder} was deleted or moved outside OpenAgent. The branch ${record.branch} still holds what was committed: reopen it in a new folder, keep the branch, or discard it.`,
            },
      );
    }
    for (const branch of branches) {
      if (seen.has(branch)) continue;
      listed.push({
        worktree: {
          name: branch.slice(SESSION_BRANCH_PREFIX.length),
          root: '',
          branch,
          base: await this.forkPoint(context, branch, head),
          gitDir: context.layout.commonDir,
          worktreeGitDir: '',
          workspaceRoot: context.layout.workTree,
        },
        state: 'branch-only',
        note: `The branch ${branch} has no worktree (it was kept, or a worktree was lost): reopen it, or discard it.`,
      });
    }
    return listed;
  }

  async reopen(listed: ListedWorktree): Promise<CreatedWorktree> {
    if (listed.state === 'ready') return { worktree: listed.worktree, notices: [] };
    const context = await this.context();
    const { branch } = listed.worktree;
    this.ownBranch(branch);
    if (!(await this.branchExists(context, branch)))
      throw new WorktreeError('no-such-branch', `The branch ${branch} no longer exists: there is nothing to reopen.`);
    // A folder gone: git's record of it goes first (it still claims the branch).
    if (listed.state === 'folder-missing' && listed.worktree.root)
      await this.git.run(['worktree', 'remove', '--force', listed.worktree.root], { ...context.main, okCodes: [128] });
    const baseFolder = prepareBaseFolder(this.options.baseFolder(), {
      workspaceRoot: this.options.workspaceRoot,
      repositoryFolders: [context.layout.workTree, context.layout.gitDir, context.layout.commonDir],
    });
    const made = await this.addWorktree(
      context,
      sessionSlug(branch.slice(SESSION_BRANCH_PREFIX.length)),
      baseFolder,
      branch,
      {
        newBranch: false,
      },
    );
    const worktree = this.worktreeAt(context, made.folder, branch, listed.worktree.name, listed.worktree.base);
    writeRecord(worktree.worktreeGitDir, {
      name: worktree.name,
      base: worktree.base,
      workspaceRoot: context.layout.workTree,
    });
    return {
      worktree,
      notices: [
        `Reopened ${branch} in ${worktree.root}: it holds what the branch had committed; changes that were never committed in the old folder are not in it.`,
        ...checkoutNotices(worktree.root, context.programs),
      ],
    };
  }

  changes(worktree: Worktree): Promise<WorktreeChange[]> {
    return this.context().then((context) => worktreeChanges(context, this.ready(worktree)));
  }

  uncommittedDiff(worktree: Worktree): Promise<{ staged: string; unstaged: string }> {
    return this.context().then((context) => worktreeUncommittedDiff(context, this.ready(worktree)));
  }

  original(worktree: Worktree, file: string): Promise<Uint8Array | undefined> {
    return this.context().then((context) => worktreeOriginal(context, worktree, file));
  }

  async apply(worktree: Worktree, request: ApplyRequest): Promise<ApplyOutcome> {
    const context = await this.context();
    this.ownBranch(worktree.branch);
    return applyWorktree(context, worktree, request, existsSync(path.join(worktree.root, '.git')));
  }

  async keep(worktree: Worktree): Promise<{ notices: string[] }> {
    const context = await this.context();
    const record = await this.ownWorktree(context, worktree);
    let committed = false;
    if (record && existsSync(path.join(record.folder, '.git')))
      committed = await commitWork(context, worktree, `OpenAgent: ${worktree.name} (kept)`);
    if (record) await this.removeWorktree(context, record.folder);
    return {
      notices: [
        `The branch ${worktree.branch} keeps the session's work${committed ? ' (what was not committed yet was committed to it first)' : ''}; its folder is removed.`,
      ],
    };
  }

  async discard(worktree: Worktree): Promise<void> {
    const context = await this.context();
    const record = await this.ownWorktree(context, worktree);
    if (record) await this.removeWorktree(context, record.folder);
    if (await this.branchExists(context, worktree.branch))
      await this.git.run(['branch', '-D', worktree.branch], context.main);
  }

  // --- the repository ---

  private async context(): Promise<RepositoryContext> {
    await this.git.checkedVersion();
    const layout = findRepository(this.options.workspaceRoot);
    const programs = await repositoryPrograms(this.git, layout.gitDir, layout.workTree);
    return {
      layout,
      programs,
      git: this.git,
      main: { gitDir: layout.gitDir, workTree: layout.workTree, cwd: layout.workTree, config: programs.overrides },
    };
  }

  private async base(context: RepositoryContext, baseBranch: string | undefined): Promise<WorktreeBase> {
    if (baseBranch !== undefined) {
      const ref = `refs/heads/${baseBranch}`;
      const { stdout, exitCode } = await this.git.run(['rev-parse', '--verify', '-q', `${ref}^{commit}`], {
        ...context.main,
        okCodes: [1, 128],
      });
      if (exitCode !== 0 || !baseBranch || baseBranch.startsWith('-'))
        throw new WorktreeError(
          'no-such-branch',
          `There is no local branch ${JSON.stringify(baseBranch)} to start from.`,
        );
      return { commit: stdout.trim(), branch: baseBranch };
    }
    const [head, branch] = await Promise.all([
      this.headCommit(context),
      this.git.run(['symbolic-ref', '-q', '--short', 'HEAD'], { ...context.main, okCodes: [1] }),
    ]);
    if (!head)
      throw new WorktreeError(
        'no-commits',
        'This repository has no commit yet, so a worktree has nothing to start from. Commit once (or run the session here).',
      );
    const name = branch.stdout.trim();
    return name ? { commit: head, branch: name } : { commit: head };
  }

  /** A commit named by hash: checked before anything is made, so a missing one makes nothing. */
  private async baseAtCommit(context: RepositoryContext, commit: string): Promise<WorktreeBase> {
    const missing = new WorktreeError(
      'no-such-commit',
      `The commit ${JSON.stringify(commit.slice(0, 64))} is not in this repository (it may have been garbage-collected, or recorded in another clone): there is nothing to start from.`,
    );
    // A hash only: never an option, a ref name or a revision expression.
    if (!/^[0-9a-f]{4,64}$/i.test(commit)) throw missing;
    const { stdout, exitCode } = await this.git.run(['rev-parse', '--verify', '-q', `${commit}^{commit}`], {
      ...context.main,
      okCodes: [1, 128],
    });
    if (exitCode !== 0) throw missing;
    return { commit: stdout.trim() };
  }

  private async headCommit(context: RepositoryContext): Promise<string | undefined> {
    const { stdout, exitCode } = await this.git.run(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], {
      ...context.main,
      okCodes: [1, 128],
    });
    return exitCode === 0 ? stdout.trim() : undefined;
  }

  private async uncommittedCount(context: RepositoryContext): Promise<number> {
    const { stdout } = await this.git.run(['status', '--porcelain', '-z', '--untracked-files=normal'], {
      ...context.main,
      env: { GIT_OPTIONAL_LOCKS: '0' },
    });
    return stdout.split('\0').filter((entry) => /^[ MADRCUT?!]{2} /.test(entry)).length;
  }

  private async branchExists(context: RepositoryContext, branch: string): Promise<boolean> {
    const { exitCode } = await this.git.run(['rev-parse', '--verify', '-q', `refs/heads/${branch}`], {
      ...context.main,
      okCodes: [1, 128],
    });
    return exitCode === 0;
  }

  /** Where a branch left the user's history: the base when the session's record is lost. */
  private async forkPoint(context: RepositoryContext, branch: string, head: string | undefined): Promise<WorktreeBase> {
    const { stdout, exitCode } = head
      ? await this.git.run(['merge-base', head, `refs/heads/${branch}`], { ...context.main, okCodes: [1] })
      : { stdout: '', exitCode: 1 };
    if (exitCode === 0) return { commit: stdout.trim() };
    const tip = await this.git.run(['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`], context.main);
    return { commit: tip.stdout.trim() };
  }

  /**
   * `git worktree add` under the first free name. A name another window took meanwhile (git
   * says "already exists") moves on to the next; a branch our failed command made is removed.
   */
  private async addWorktree(
    context: RepositoryContext,
    slug: string,
    baseFolder: string,
    start: string,
    how: { newBranch: boolean },
  ): Promise<{ folder: string; branch: string }> {
    for (const candidate of slugCandidates(slug, NAME_ATTEMPTS)) {
      const branch = how.newBranch ? `${SESSION_BRANCH_PREFIX}${candidate}` : start;
      const folder = path.join(baseFolder, candidate);
      if (occupied(folder) || (how.newBranch && (await this.branchExists(context, branch)))) continue;
      const args = how.newBranch
        ? ['worktree', 'add', '--no-track', '-b', branch, folder, start]
        : ['worktree', 'add', folder, branch];
      try {
        await this.git.run(args, context.main);
        return { folder, branch };
      } catch (error) {
        const message = (error as Error).message;
        const branchTaken = /a branch named .* already exists/i.test(message);
        if (how.newBranch && !branchTaken) await this.dropStrayBranch(context, branch, start);
        if (/already exists/i.test(message)) continue;
        throw diskFull(error, baseFolder);
      }
    }
    throw new WorktreeError(
      'git-failed',
      `No free name for this session's worktree (${SESSION_BRANCH_PREFIX}${slug} and ${NAME_ATTEMPTS - 1} more are taken): discard some old sessions, or choose another name.`,
    );
  }

  /** A branch `worktree add -b` made before failing: removed if it is still untouched and not checked out. */
  private async dropStrayBranch(context: RepositoryContext, branch: string, start: string): Promise<void> {
    const { stdout, exitCode } = await this.git.run(['rev-parse', '--verify', '-q', `refs/heads/${branch}`], {
      ...context.main,
      okCodes: [1, 128],
    });
    if (exitCode !== 0 || stdout.trim() !== start) return;
    const records = await this.worktreeRecords(context);
    if (records.some((record) => record.branch === branch)) return;
    await this.git.run(['branch', '-D', branch], { ...context.main, okCodes: [1] });
  }

  private worktreeAt(
    context: RepositoryContext,
    folder: string,
    branch: string,
    name: string,
    base: WorktreeBase,
  ): Worktree {
    const root = realpathSync(folder);
    const named = /^gitdir: (.+?)[\r\n]*$/m.exec(readFileSync(path.join(root, '.git'), 'utf8'))?.[1];
    if (!named) throw new WorktreeError('git-failed', `git made ${root} without the .git file naming its git folder.`);
    return {
      name,
      root,
      branch,
      base,
      gitDir: context.layout.commonDir,
      worktreeGitDir: realpathSync(path.resolve(root, named)),
      workspaceRoot: context.layout.workTree,
    };
  }

  /** `git worktree list`, with the git folder of each linked worktree found from its `gitdir` file. */
  async worktreeRecords(
    context: RepositoryContext,
  ): Promise<Array<{ folder: string; branch?: string; adminDir?: string }>> {
    // `-z` (git 2.36+) keeps a folder name with a line end in it whole.
    const nul = compareVersions(await this.git.checkedVersion(), [2, 36]) >= 0;
    const { stdout } = await this.git.run(['worktree', 'list', '--porcelain', ...(nul ? ['-z'] : [])], context.main);
    const blocks = nul
      ? stdout.split('\0\0').map((block) => block.split('\0'))
      : stdout.split(/\n\n+/).map((block) => block.split('\n'));
    const adminDirs = new Map<string, string>();
    const worktreesFolder = path.join(context.layout.commonDir, 'worktrees');
    for (const id of safeReaddir(worktreesFolder)) {
      const adminDir = path.join(worktreesFolder, id);
      const dotGit = readSmall(path.join(adminDir, 'gitdir')).replace(/[\r\n]+$/, '');
      if (dotGit) adminDirs.set(path.dirname(dotGit), adminDir);
    }
    const records: Array<{ folder: string; branch?: string; adminDir?: string }> = [];
    for (const lines of blocks) {
      const value = (prefix: string) => lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
      const folder = value('worktree ');
      if (!folder) continue;
      const branch = value('branch refs/heads/');
      records.push({
        folder,
        ...(branch ? { branch } : {}),
        ...(adminDirs.has(folder) ? { adminDir: adminDirs.get(folder)! } : {}),
      });
    }
    return records;
  }

  private async sessionBranches(context: RepositoryContext): Promise<string[]> {
    const { stdout } = await this.git.run(
      ['for-each-ref', '--format=%(refname:short)', `refs/heads/${SESSION_BRANCH_PREFIX}`],
      context.main,
    );
    return stdout.split('\n').filter((line) => line.startsWith(SESSION_BRANCH_PREFIX));
  }

  /** Git's record of this session's worktree, if it has one; refuses what is not a session worktree. */
  private async ownWorktree(context: RepositoryContext, worktree: Worktree) {
    this.ownBranch(worktree.branch);
    const records = await this.worktreeRecords(context);
    const record = records.find((entry) => entry.branch === worktree.branch);
    if (record && worktree.root && record.folder !== worktree.root && realOr(record.folder) !== worktree.root)
      throw new WorktreeError(
        'not-a-session-worktree',
        `${worktree.branch} is checked out in ${record.folder}, not in ${worktree.root}: list the sessions again.`,
      );
    if (record && record.folder === context.layout.workTree)
      throw new WorktreeError('not-a-session-worktree', `${worktree.branch} is checked out in the workspace itself.`);
    return record;
  }

  private ownBranch(branch: string): void {
    if (!branch.startsWith(SESSION_BRANCH_PREFIX) || branch.length <= SESSION_BRANCH_PREFIX.length)
      throw new WorktreeError(
        'not-a-session-worktree',
        `${branch} is not a session branch (${SESSION_BRANCH_PREFIX}…).`,
      );
  }

  private ready(worktree: Worktree): Worktree {
    if (!worktree.root || !existsSync(path.join(worktree.root, '.git')))
      throw new WorktreeError(
        'not-a-session-worktree',
        `The worktree folder of ${worktree.branch} is not there (deleted or moved): reopen the session first.`,
      );
    return worktree;
  }

  /**
   * `git worktree remove --force` (ignored files such as installed dependencies go with the
   * folder). Git will not remove a worktree with initialized submodules: the folder is then
   * deleted here and git's record of it removed after.
   */
  private async removeWorktree(context: RepositoryContext, folder: string): Promise<void> {
    try {
      await this.git.run(['worktree', 'remove', '--force', '--force', folder], context.main);
    } catch (error) {
      if (!/submodule/i.test((error as Error).message) || !existsSync(path.join(folder, '.git'))) throw error;
      rmSync(folder, { recursive: true, force: true });
      await this.git.run(['worktree', 'remove', '--force', '--force', folder], context.main);
    }
  }
}

function safeReaddir(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
