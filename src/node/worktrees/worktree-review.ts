/**
 * Reviewing and applying a session's worktree (issue 33, item 4).
 * - Changes: every file that differs from the base commit — committed on the branch or not yet
 *   committed in the worktree, new files included — read through a scratch copy of the
 *   worktree's index, so the session's own index is never touched.
 * - Apply: what the worktree still holds is committed to its branch first (nothing is lost);
 *   then, in the user's working tree, the files the branch changes are checked against what the
 *   user has not committed (changed, staged, untracked, even ignored): any overlap and nothing
 *   is done — the outcome lists the files. A merge also needs nothing staged (git's rule, said
 *   before git says it). Conflicts are left in the working tree, as git leaves them, and listed
 *   for the editor's merge editor.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  WorktreeError,
  type ApplyOutcome,
  type ApplyRequest,
  type ChangeKind,
  type Worktree,
  type WorktreeChange,
} from '../../core/session/worktree-port';
import type { GitOptions } from './git-command';
import type { RepositoryContext } from './repository-config';

/** Paths per `git status` call when checking overlaps (well under any command-line limit). */
const PATHS_PER_CALL = 500;
const FALLBACK_IDENTITY = ['user.name=OpenAgent', 'user.email=openagent@localhost'];

/** Options for commands in the session's worktree. */
function inWorktree(context: RepositoryContext, worktree: Worktree): GitOptions {
  return {
    gitDir: worktree.worktreeGitDir,
    workTree: worktree.root,
    cwd: worktree.root,
    config: context.programs.overrides,
  };
}

export async function worktreeChanges(context: RepositoryContext, worktree: Worktree): Promise<WorktreeChange[]> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'openagent-review-'));
  try {
    const index = path.join(scratch, 'index');
    const own = path.join(worktree.worktreeGitDir, 'index');
    // A copy keeps the stat data: `add -A` then only reads files that changed.
    if (existsSync(own)) copyFileSync(own, index);
    const options = { ...inWorktree(context, worktree), env: { GIT_INDEX_FILE: index } };
    await context.git.run(['add', '-A'], options);
    const { stdout } = await context.git.run(
      ['diff', '--cached', '-z', '--name-status', '-M', '--no-ext-diff', '--no-textconv', worktree.base.commit, '--'],
      options,
    );
    return parseNameStatus(stdout);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The worktree's staged and unstaged diffs, as `git diff --cached` and `git diff` print them there. */
export async function worktreeUncommittedDiff(
  context: RepositoryContext,
  worktree: Worktree,
): Promise<{ staged: string; unstaged: string }> {
  const options = inWorktree(context, worktree);
  const diff = (cached: boolean) =>
    context.git
      .run(['diff', ...(cached ? ['--cached'] : []), '--no-color', '--no-ext-diff', '--no-textconv', '--'], options)
      .then(({ stdout }) => stdout);
  const [staged, unstaged] = await Promise.all([diff(true), diff(false)]);
  return { staged, unstaged };
}

const KINDS: Record<string, ChangeKind> = { A: 'added', M: 'modified', D: 'deleted', T: 'type-changed', R: 'renamed' };

/** `git diff --name-status -z`: `M\0path\0`, `R087\0old\0new\0`. */
export function parseNameStatus(output: string): WorktreeChange[] {
  const fields = output.split('\0');
  const changes: WorktreeChange[] = [];
  for (let at = 0; at < fields.length - 1;) {
    const status = fields[at++]!;
    const letter = status[0] ?? '';
    if (letter === 'R' || letter === 'C') {
      const previousPath = fields[at++]!;
      const file = fields[at++]!;
      changes.push(letter === 'R' ? { path: file, kind: 'renamed', previousPath } : { path: file, kind: 'added' });
    } else {
      changes.push({ path: fields[at++]!, kind: KINDS[letter] ?? 'modified' });
    }
  }
  return changes;
}

export async function worktreeOriginal(
  context: RepositoryContext,
  worktree: Worktree,
  file: string,
): Promise<Uint8Array | undefined> {
  const object = `${worktree.base.commit}:${file.replace(/^\.\//, '')}`;
  const exists = await context.git.run(['cat-file', '-e', object], { ...context.main, okCodes: [1, 128] });
  if (exists.exitCode !== 0) return undefined;
  return context.git.runBinary(['cat-file', 'blob', object], context.main);
}

/** Commits everything the worktree holds (new files too, ignored ones not) to its branch; false when there was nothing. */
export async function commitWork(context: RepositoryContext, worktree: Worktree, message: string): Promise<boolean> {
  const options = inWorktree(context, worktree);
  await context.git.run(['add', '-A'], options);
  const staged = await context.git.run(['diff', '--cached', '--quiet', '--no-ext-diff'], { ...options, okCodes: [1] });
  if (staged.exitCode === 0) return false;
  await context.git.run(['commit', '--no-verify', '-q', '-m', message], {
    ...options,
    config: [...(options.config ?? []), ...(await identity(context, options))],
  });
  return true;
}

/** A fallback author where git has none configured (a fresh machine): commits must not fail on it. */
async function identity(context: RepositoryContext, options: GitOptions): Promise<string[]> {
  const { exitCode } = await context.git.run(['var', 'GIT_COMMITTER_IDENT'], { ...options, okCodes: [128, 1] });
  return exitCode === 0 ? [] : FALLBACK_IDENTITY;
}

export async function applyWorktree(
  context: RepositoryContext,
  worktree: Worktree,
  request: ApplyRequest,
  folderPresent: boolean,
): Promise<ApplyOutcome> {
  const { git, main } = context;
  const notices: string[] = [];
  if (folderPresent && (await commitWork(context, worktree, `OpenAgent: ${worktree.name}`)))
    notices.push(`What the session had not committed was committed to ${worktree.branch} first.`);
  const inProgress = await git.run(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { ...main, okCodes: [1, 128] });
  if (inProgress.exitCode === 0)
    return {
      kind: 'refused',
      reason: 'merge-in-progress',
      files: [],
      message: 'A merge is in progress in your working tree: finish or abort it first, then apply again.',
    };
  const ref = `refs/heads/${worktree.branch}`;
  const changed = await git.run(
    ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', `HEAD...${ref}`, '--'],
    main,
  );
  const files = changed.stdout.split('\0').filter(Boolean);
  if (files.length === 0) return { kind: 'nothing-to-apply', notices };
  const overlapping = await uncommittedAmong(context, files);
  if (overlapping.length > 0)
    return {
      kind: 'refused',
      reason: 'overlapping-changes',
      files: overlapping,
      message: `You have changes that are not committed in ${overlapping.length === 1 ? 'a file' : `${overlapping.length} files`} this session changes too (${shortList(overlapping)}). Nothing was applied: commit or stash them, then apply again.`,
    };
  if (request.mode === 'merge') {
    const staged = await git.run(['diff', '--cached', '--name-only', '-z', '--no-ext-diff'], main);
    const stagedFiles = staged.stdout.split('\0').filter(Boolean);
    if (stagedFiles.length > 0)
      return {
        kind: 'refused',
        reason: 'staged-changes',
        files: stagedFiles,
        message: `A merge needs nothing staged, and ${shortList(stagedFiles)} ${stagedFiles.length === 1 ? 'is' : 'are'}. Nothing was applied: commit or unstage them, or apply as a squash.`,
      };
  }
  const args =
    request.mode === 'merge'
      ? ['merge', '--no-ff', '--no-stat', '--no-edit', '-m', `Apply OpenAgent session: ${worktree.name}`, ref]
      : ['merge', '--squash', '--no-stat', ref];
  const config = [...(main.config ?? []), ...(await identity(context, main))];
  const merged = await git.run(args, { ...main, config, okCodes: [1] });
  if (merged.exitCode !== 0) {
    const conflicted = await git.run(['diff', '--name-only', '-z', '--diff-filter=U'], main);
    const conflicts = conflicted.stdout.split('\0').filter(Boolean);
    if (conflicts.length === 0)
      throw new WorktreeError(
        'git-failed',
        `git merge did not apply ${worktree.branch}:\n${merged.stderr || merged.stdout}`.trim(),
      );
    notices.push(
      request.mode === 'merge'
        ? 'Resolve the conflicts and commit to finish the merge (or `git merge --abort`).'
        : 'Resolve the conflicts; the rest of the changes are staged, not committed.',
    );
    return { kind: 'conflicts', mode: request.mode, files: conflicts, notices };
  }
  if (request.mode === 'squash') {
    notices.push('The changes are staged in your working tree, not committed: review and commit them.');
    return { kind: 'applied', mode: 'squash', files, notices };
  }
  const head = await git.run(['rev-parse', 'HEAD'], main);
  return { kind: 'applied', mode: 'merge', files, commit: head.stdout.trim(), notices };
}

/** Of `files`, those the user has changed, staged, or has untracked or ignored in the working tree. */
async function uncommittedAmong(context: RepositoryContext, files: string[]): Promise<string[]> {
  const found: string[] = [];
  for (let at = 0; at < files.length; at += PATHS_PER_CALL) {
    const { stdout } = await context.git.run(
      [
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=all',
        '--ignored=matching',
        '--no-renames',
        '--',
        ...files.slice(at, at + PATHS_PER_CALL),
      ],
      { ...context.main, env: { GIT_OPTIONAL_LOCKS: '0' } },
    );
    for (const entry of stdout.split('\0')) if (entry.length > 3) found.push(entry.slice(3));
  }
  return [...new Set(found)];
}

function shortList(files: string[]): string {
  return files.length <= 5 ? files.join(', ') : `${files.slice(0, 5).join(', ')} and ${files.length - 5} more`;
}
