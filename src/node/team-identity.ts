/**
 * Who is working, as the team database knows them (SPEC 5a): the member's e-mail — the setting
 * or environment variable when given, else git's `user.email`, else user@host — and the
 * repository: the workspace's `origin` remote, normalised (no scheme, no credentials, no
 * `.git`, host in lower case) so the same repository cloned over SSH or HTTPS is one, else the
 * folder's name.
 */
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TeamIdentity } from '../core/team/team-store';

export async function resolveTeamIdentity(options: { member?: string; root?: string }): Promise<TeamIdentity> {
  const member =
    options.member?.trim() ||
    (await git(['config', 'user.email'], options.root)) ||
    `${os.userInfo().username}@${os.hostname()}`;
  const remote = options.root ? await git(['remote', 'get-url', 'origin'], options.root) : undefined;
  const repository = remote ? normaliseRemote(remote) : options.root ? path.basename(options.root) : undefined;
  return { member, ...(repository ? { repository } : {}) };
}

/** `git@github.com:Acme/App.git`, `https://user:token@GitHub.com/Acme/App` → `github.com/Acme/App`. */
export function normaliseRemote(remote: string): string {
  let text = remote.trim();
  const scp = /^[^/@\s]+@([^:/\s]+):(.+)$/.exec(text);
  if (scp) text = `${scp[1]}/${scp[2]}`;
  else {
    try {
      const url = new URL(text);
      text = `${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
    } catch {
      // A local path or something else: kept as written, minus what follows.
    }
  }
  text = text.replace(/\.git\/?$/, '').replace(/\/+$/, '');
  const slash = text.indexOf('/');
  return slash > 0 ? `${text.slice(0, slash).toLowerCase()}${text.slice(slash)}` : text;
}

function git(args: string[], cwd: string | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 10_000, windowsHide: true }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim() || undefined),
    );
  });
}
