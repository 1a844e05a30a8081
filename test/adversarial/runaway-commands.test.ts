/**
 * Class 6 of the adversarial suite (part): commands that try to outlive their timeout or the
 * user's stop — by leaving their process group, by holding the output pipes open, by ignoring
 * signals — and a command that would read differently under another shell.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { PATIENCE_MS, TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';

/** Whether a process whose command line holds `marker` is still alive. */
function alive(marker: string): boolean {
  try {
    execFileSync('pgrep', ['-f', marker], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const eventually = (condition: () => boolean, what: string) => waitUntil(() => condition() || undefined, what);

describe('adversarial: runaway commands', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const shell = new ChildProcessShell();
  let marker = 0;
  const next = () => `9${process.pid % 1000}.${++marker}${Date.now() % 1000}`;

  // The foreground waits ten minutes, the escaped process for hours: a call that returns within
  // the tests' patience (minutes) waited for neither.
  const ESCAPES: Array<[string, (seconds: string) => string]> = [
    ['a new session in the background (setsid … &)', (seconds) => `setsid sleep ${seconds} & sleep 600`],
    ['a new session holding the pipes, the shell waiting', (seconds) => `setsid sleep ${seconds}`],
    ['nohup in the background', (seconds) => `nohup sleep ${seconds} & sleep 600`],
    ['a subshell ignoring TERM', (seconds) => `(trap '' TERM; sleep ${seconds}) & sleep 600`],
    ['a double fork', (seconds) => `( ( sleep ${seconds} & ) & ) ; sleep 600`],
    ['a disowned job', (seconds) => `sleep ${seconds} & disown; sleep 600`],
  ];

  for (const [name, command] of ESCAPES) {
    it(`a timeout ends ${name}: the call returns and what it started is gone`, async () => {
      const seconds = next();
      const started = Date.now();
      await shell.run(command(seconds), { timeoutMs: 1_500, maxOutputChars: 1_000 });
      assert.ok(Date.now() - started < PATIENCE_MS, 'it did not wait for the escaped process');
      await eventually(() => !alive(`sleep ${seconds}`), `sleep ${seconds} to be killed`);
    });
  }

  it("the user's stop ends a command that left its group, at once", async () => {
    const seconds = next();
    const stop = new AbortController();
    const running = shell.run(`setsid sleep ${seconds} & sleep 60`, {
      timeoutMs: 60_000,
      maxOutputChars: 1_000,
      signal: stop.signal,
    });
    await eventually(() => alive(`sleep ${seconds}`), 'the command to start');
    stop.abort();
    await running;
    await eventually(() => !alive(`sleep ${seconds}`), `sleep ${seconds} to be killed`);
  });

  it('a command that leaves something running returns without waiting for it, and leaves nothing behind', async () => {
    const seconds = next();
    const started = Date.now();
    const result = await shell.run(`sleep ${seconds} & echo started`, {
      timeoutMs: 10 * 60_000,
      maxOutputChars: 1_000,
    });
    assert.equal(result.exitCode, 0);
    assert.match(result.output, /started/);
    assert.ok(Date.now() - started < PATIENCE_MS, 'it did not wait for what it left running');
    await eventually(() => !alive(`sleep ${seconds}`), `sleep ${seconds} to be ended`);
  });

  it("runs in bash whatever $SHELL says: $'…' means what the analyser read", async () => {
    const previous = process.env.SHELL;
    process.env.SHELL = '/bin/sh';
    try {
      const result = await new ChildProcessShell().run("printf '%s' $'a\\x41b'", {
        timeoutMs: 10_000,
        maxOutputChars: 100,
      });
      assert.equal(result.output, 'aAb');
    } finally {
      process.env.SHELL = previous;
    }
  });
});
