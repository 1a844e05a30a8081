/**
 * The commit HEAD names in a folder, and its branch, for a recorded run's manifest (the core
 * asks through SessionRecordingOptions.head and never runs git itself). Undefined where the
 * folder is not in a git repository, git is missing, or it does not answer in time.
 */
import { execFile } from 'node:child_process';

const GIVE_UP_MS = 5_000;

function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd: root, timeout: GIVE_UP_MS, windowsHide: true, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } },
      (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined),
    );
  });
}

export async function gitHead(root: string): Promise<{ commit?: string; branch?: string } | undefined> {
  const commit = await git(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  if (!commit) return undefined;
  const branch = await git(root, ['symbolic-ref', '--short', '-q', 'HEAD']);
  return branch ? { commit, branch } : { commit };
}
