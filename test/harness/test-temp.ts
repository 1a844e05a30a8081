/**
 * One temporary folder per test run, removed when the run ends: tests make their folders with
 * os.tmpdir() (stores, workspaces, homes, sandboxes — tens of thousands over a day of runs), and
 * a run that removed none of them filled /tmp. Loaded before the tests (.mocharc's `require`);
 * every child process inherits it through TMPDIR. Open to every user like /tmp itself: the
 * PostgreSQL tests run the server as its own user, with its data folder in here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

if (!process.env.OPENAGENT_TEST_TMPDIR) {
  // Short, and named by the process, not by mkdtemp's random letters: tests bind Unix sockets
  // under it (their paths may not pass 107 bytes), and a value such as `x8Kq2Z` looks like a
  // token to the environment scrub, which would then take TMPDIR for a secret.
  const run = freshFolder(path.join(os.tmpdir(), `oa-${process.pid}`));
  fs.chmodSync(run, 0o1777);
  process.env.OPENAGENT_TEST_TMPDIR = run;
  process.env.TMPDIR = run;
  process.on('exit', () => {
    try {
      fs.rmSync(run, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A folder a test left unremovable (a mount, a busy file) stays; the rest is gone.
    }
  });
}

/** `base`, or `base-1`, `base-2`… when a run that died left one behind. */
function freshFolder(base: string): string {
  for (let attempt = 0; ; attempt++) {
    const folder = attempt === 0 ? base : `${base}-${attempt}`;
    try {
      fs.mkdirSync(folder);
      return folder;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 1_000) throw error;
    }
  }
}
