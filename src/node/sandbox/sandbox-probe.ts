/**
 * Whether commands can be confined on this machine: sandbox-exec on macOS; on Linux, bubblewrap
 * installed and able to start (user namespaces may be turned off). Asking bubblewrap means
 * starting it twice; from the editor's extension host that is best done without blocking it
 * (probeAsync), before the first command or prompt needs the answer. The synchronous
 * probe remains for a status asked before that (the CLI's first line, a command run at once).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type Probe = { ok: true; version: string } | { ok: false; why: string };

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
const VERSION_ARGS = ['--version'];
/** A trial run: a read-only root, no network, its own PIDs and /proc. */
const TRIAL_ARGS = ['--ro-bind', '/', '/', '--unshare-net', '--unshare-pid', '--proc', '/proc', '--', '/bin/true'];
const VERSION_TIMEOUT_MS = 5_000;
const TRIAL_TIMEOUT_MS = 10_000;
const NOT_INSTALLED: Probe = { ok: false, why: 'bubblewrap (bwrap) is not installed' };

/** What one run of bubblewrap gave (spawnSync's shape). */
interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

export function probeBlocking(platform: NodeJS.Platform, bwrap: string): Probe {
  const known = withoutBubblewrap(platform);
  if (known) return known;
  const run = (args: string[], timeout: number): Ran => spawnSync(bwrap, args, { encoding: 'utf8', timeout });
  const version = run(VERSION_ARGS, VERSION_TIMEOUT_MS);
  return installed(version) ? judge(version, run(TRIAL_ARGS, TRIAL_TIMEOUT_MS)) : NOT_INSTALLED;
}

/** The same answer as probeBlocking, with bubblewrap started asynchronously: the process goes on meanwhile. */
export async function probeAsync(platform: NodeJS.Platform, bwrap: string): Promise<Probe> {
  const known = withoutBubblewrap(platform);
  if (known) return known;
  const version = await runInBackground(bwrap, VERSION_ARGS, VERSION_TIMEOUT_MS);
  return installed(version)
    ? judge(version, await runInBackground(bwrap, TRIAL_ARGS, TRIAL_TIMEOUT_MS))
    : NOT_INSTALLED;
}

/** The answer where bubblewrap is not the question (not Linux). */
function withoutBubblewrap(platform: NodeJS.Platform): Probe | undefined {
  if (platform === 'darwin')
    return existsSync(SANDBOX_EXEC)
      ? { ok: true, version: 'macOS sandbox-exec (untested)' }
      : { ok: false, why: 'sandbox-exec is missing' };
  if (platform !== 'linux') return { ok: false, why: `there is no sandbox for ${platform} yet` };
  return undefined;
}

function installed(version: Ran): boolean {
  return !version.error && version.status === 0;
}

/** Installed is not enough: user namespaces may be turned off. The trial run says. */
function judge(version: Ran, trial: Ran): Probe {
  if (trial.status === 0) return { ok: true, version: version.stdout.trim() };
  const why = (trial.stderr || String(trial.error ?? '')).trim().split('\n')[0];
  return { ok: false, why: `bubblewrap cannot start here (${why})` };
}

function runInBackground(file: string, args: string[], timeout: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'utf8', timeout }, (error, stdout, stderr) => {
      // As spawnSync tells it: an exit code as the status; a failure to start or a timeout as an error.
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (!error) resolve({ status: 0, stdout, stderr });
      else if (typeof code === 'number') resolve({ status: code, stdout, stderr });
      else resolve({ status: null, stdout, stderr, error });
    });
  });
}
