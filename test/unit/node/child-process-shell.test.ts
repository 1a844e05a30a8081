import assert from 'node:assert/strict';
import { ChildProcessShell } from '../../../src/node/child-process-shell';

describe('ChildProcessShell', () => {
  const shell = new ChildProcessShell('/bin/bash');

  it('returns output and exit code', async () => {
    const result = await shell.run('echo out; echo err >&2; exit 3', { timeoutMs: 10_000, maxOutputChars: 1000 });
    assert.equal(result.exitCode, 3);
    assert.match(result.output, /out/);
    assert.match(result.output, /err/);
    assert.equal(result.via, 'child-process');
  });

  it('kills a command that runs past its timeout', async () => {
    const started = Date.now();
    const result = await shell.run('sleep 30', { timeoutMs: 300, maxOutputChars: 1000 });
    assert.equal(result.timedOut, true);
    assert.ok(Date.now() - started < 5_000);
  });

  it('caps endless output and keeps the end', async () => {
    const result = await shell.run('seq 1 200000', { timeoutMs: 10_000, maxOutputChars: 100 });
    assert.ok(result.output.endsWith('200000\n'));
    assert.ok(result.output.length < 200);
  });
});
