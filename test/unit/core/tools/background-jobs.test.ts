/**
 * Background jobs with real processes (the Node runner): output, exit codes, caps, timeouts,
 * the concurrency limit, completions drained exactly once, tree kill on dispose, the two tools,
 * and a completion reaching the model through the loop's inbox.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { BackgroundJobs, formatDuration, type BackgroundJobsOptions } from '../../../../src/core/tools/background-jobs';
import { createBackgroundTools } from '../../../../src/core/tools/builtin/background';
import type { AnyTool, ToolOutput } from '../../../../src/core/tools/tool';
import { ChildProcessRunner } from '../../../../src/node/child-process-runner';
import { systemClock } from '../../../../src/node/system-clock';
import { PROTOCOLS, startHarness, type Harness } from '../agent/loop-harness';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../../../harness/patience';

const context = { conversationId: 'c', agentId: 'lead', toolCallId: 't', signal: new AbortController().signal };

async function waitFor(condition: () => boolean, what: string, timeoutMs = PATIENCE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a process exists and is not a zombie (a container's init may not reap orphans). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

async function call(tool: AnyTool, input: unknown): Promise<ToolOutput> {
  const result = await tool.execute(tool.inputSchema.parse(input), context);
  return typeof result === 'string' ? { output: result } : result;
}

describe('background jobs', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let jobs: BackgroundJobs;
  const created: BackgroundJobs[] = [];

  function makeJobs(options: Partial<BackgroundJobsOptions> = {}): BackgroundJobs {
    jobs = new BackgroundJobs({ runner: new ChildProcessRunner(), clock: systemClock, ...options });
    created.push(jobs);
    return jobs;
  }

  const finished = (id: string) => () => jobs.list().find((info) => info.id === id)?.status !== 'running';

  afterEach(async () => {
    await Promise.all(created.splice(0).map((each) => each.dispose()));
  });

  it('returns a job at once and reports its completion with the output, exactly once', async () => {
    makeJobs();
    const job = jobs.start('echo probe-$((6*7))');
    assert.equal(job.id, 'bg-1');
    assert.equal(job.status, 'running');
    const drained: string[] = [];
    await waitFor(() => drained.push(...jobs.drainCompleted()) > 0, 'the completion');
    assert.equal(drained.length, 1);
    assert.match(
      drained[0]!,
      /^\[Background job bg-1 exited with code 0 after .*: `echo probe-\$\(\(6\*7\)\)`\]\nLast output:\nprobe-42$/,
    );
    assert.deepEqual(jobs.drainCompleted(), []);
  });

  it('reports a failing exit code, and strips escape sequences', async () => {
    makeJobs();
    const failing = jobs.start("printf '\\033[31mred\\033[0m\\n'; exit 3");
    await waitFor(finished(failing.id), 'the job to end');
    const snapshot = jobs.check(failing.id);
    assert.equal(snapshot?.status, 'exited');
    assert.equal(snapshot?.exitCode, 3);
    assert.equal(snapshot?.output, 'red\n');
  });

  it('hands out each completion once, and not one the model already checked', async () => {
    const completed: string[] = [];
    makeJobs({ onComplete: (job) => completed.push(`${job.id}:${job.exitCode}`) });
    const ids = ['true', 'exit 1', 'exit 2'].map((command) => jobs.start(command).id);
    await waitFor(() => ids.every((id) => finished(id)()), 'all jobs to end');
    assert.equal(jobs.check('bg-2')?.exitCode, 1);
    const drained = jobs.drainCompleted();
    // In the order they finished, which real processes do not promise.
    drained.sort();
    assert.deepEqual(
      drained.map((message) => message.split(' ')[2]),
      ['bg-1', 'bg-3'],
    );
    assert.match(drained[0]!, /\n\(no output\)$/);
    assert.deepEqual(jobs.drainCompleted(), []);
    assert.deepEqual(completed.sort(), ['bg-1:0', 'bg-2:1', 'bg-3:2']);
  });

  it('caps a megabyte of output, keeping the end, and shows only a tail with the completion', async () => {
    makeJobs({ maxOutputChars: 10_000, completionTailChars: 500 });
    const job = jobs.start("head -c 1048576 /dev/zero | tr '\\0' 'a'; echo; echo END-MARK");
    await waitFor(finished(job.id), 'the job to end');
    const output = jobs.drainCompleted()[0]!;
    assert.ok(output.length < 800, `completion is ${output.length} characters`);
    assert.match(output, /check_background bg-1 shows more/);
    assert.match(output, /a\nEND-MARK$/);
    const snapshot = jobs.check(job.id)!;
    assert.ok(snapshot.output.length < 10_100, `output is ${snapshot.output.length} characters`);
    assert.match(snapshot.output, /^\[… 1038586 characters of earlier output omitted …\]\na+\nEND-MARK\n$/);
  });

  it('stops a job at its timeout and says so', async () => {
    makeJobs();
    const job = jobs.start('sleep 30', { timeoutMs: 300 });
    assert.equal(job.timeoutMs, 300);
    await waitFor(finished(job.id), 'the timeout');
    const snapshot = jobs.check(job.id);
    assert.equal(snapshot?.status, 'timed_out');
    assert.equal(snapshot?.exitCode, undefined);
    assert.match(jobs.describe(snapshot!), /^timed out after less than 1 s \(stopped\)$/);
  });

  it('says so when the working folder does not exist', async () => {
    makeJobs();
    const job = jobs.start('true', { cwd: '/no/such/folder/here' });
    await waitFor(finished(job.id), 'the job to fail');
    assert.equal(jobs.check(job.id)?.exitCode, undefined);
    assert.match(jobs.check(job.id)!.output, /The working folder does not exist: \/no\/such\/folder\/here/);
  });

  it('caps a requested timeout at the maximum', () => {
    makeJobs({ maxTimeoutMs: 60_000 });
    assert.equal(jobs.start('true', { timeoutMs: 10 * 60_000 }).timeoutMs, 60_000);
    assert.equal(jobs.start('true').timeoutMs, 60_000);
  });

  it('refuses a ninth concurrent job with a clear message, and accepts one when a slot frees', async () => {
    makeJobs();
    const [run, check] = createBackgroundTools(jobs, () => undefined);
    for (let index = 1; index <= 8; index++) {
      assert.equal((await run!.execute({ command: 'sleep 1000' }, context)) !== undefined, true);
    }
    const refused = await run!.execute({ command: 'sleep 1000' }, context);
    assert.deepEqual(refused, {
      output:
        'Too many background jobs: 8 are running (the limit is 8): bg-1, bg-2, bg-3, bg-4, bg-5, bg-6, bg-7, bg-8. ' +
        'Wait for one to finish before starting another.',
      isError: true,
    });
    assert.equal(jobs.cancel('bg-3'), true);
    await waitFor(finished('bg-3'), 'the cancelled job to end');
    assert.match((await call(run!, { command: 'sleep 1000' })).output, /^Started background job bg-9:/);
    const list = (await call(check!, {})).output;
    assert.match(list, /^9 background job\(s\), 8 running \(at most 8\):\n- bg-1 running for /);
    assert.match(list, /- bg-3 was cancelled after .*: `sleep 1000`/);
    assert.deepEqual(jobs.drainCompleted(), [], 'a cancelled job reports no completion');
  });

  it('kills the whole process tree on dispose, and refuses new jobs afterwards', async () => {
    makeJobs();
    const job = jobs.start('sleep 1000 & echo child=$!; wait');
    await waitFor(() => /child=\d+/.test(jobs.check(job.id)!.output), 'the child pid');
    const pid = Number(/child=(\d+)/.exec(jobs.check(job.id)!.output)![1]);
    assert.equal(isAlive(pid), true);
    await jobs.dispose();
    await waitFor(() => !isAlive(pid), `pid ${pid} to be gone`);
    assert.equal(jobs.check(job.id)?.status, 'cancelled');
    assert.deepEqual(jobs.drainCompleted(), []);
    assert.throws(() => jobs.start('true'), /Background jobs are closed/);
  });

  it('check_background shows a running job’s output so far, a finished one’s result, and unknown ids', async () => {
    makeJobs();
    const [run, check] = createBackgroundTools(jobs, () => tmpdir());
    const started = await call(run!, { command: 'echo started-$((1+1)); sleep 1000', timeoutSeconds: 600 });
    assert.match(
      started.output,
      /^Started background job bg-1: `echo started-\$\(\(1\+1\)\); sleep 1000` \(stopped after 10 min\)\./,
    );
    await waitFor(() => jobs.check('bg-1')!.output.includes('started-2'), 'the first output');
    assert.match(
      (await call(check!, { id: 'bg-1' })).output,
      /^Job bg-1 running for .*: `echo started-\$\(\(1\+1\)\); sleep 1000`\nstarted-2\n$/,
    );

    await call(run!, { command: 'pwd; exit 4' });
    await waitFor(finished('bg-2'), 'the second job to end');
    const result = await call(check!, { id: 'bg-2' });
    assert.equal(result.isError, undefined);
    assert.match(result.output, /^Job bg-2 exited with code 4 after .*: `pwd; exit 4`\n/);
    assert.ok(result.output.includes(tmpdir()), 'runs in the cwd the tools were given');

    assert.deepEqual(await check!.execute({ id: 'bg-99' }, context), {
      output: 'No background job "bg-99". Known jobs: bg-1, bg-2.',
      isError: true,
    });
  });

  it('describes the tools for approvals: background_run asks, check_background does not', () => {
    makeJobs();
    const [run, check] = createBackgroundTools(jobs, () => undefined);
    assert.equal(run!.name, 'background_run');
    assert.equal(run!.readOnly, false);
    assert.equal(run!.needsApproval, true);
    assert.equal(run!.summarize?.({ command: 'npm test' }), 'run `npm test` in the background');
    assert.equal(check!.name, 'check_background');
    assert.equal(check!.readOnly, true);
    assert.equal(check!.needsApproval, false);
    assert.equal(check!.summarize?.({}), 'list background jobs');
    assert.throws(() => run!.inputSchema.parse({ command: 'x', timeoutSeconds: 7201 }));
  });

  it('formats durations', () => {
    assert.deepEqual([400, 12_000, 75_000, 1_800_000, 7_200_000, 7_500_000].map(formatDuration), [
      'less than 1 s',
      '12 s',
      '1 min 15 s',
      '30 min',
      '2 h',
      '2 h 5 min',
    ]);
  });
});

for (const protocol of PROTOCOLS) {
  describe(`background jobs in the agent loop (${protocol} wire format)`, function () {
    this.timeout(TEST_TIMEOUT_MS);
    let harness: Harness;
    let jobs: BackgroundJobs;
    afterEach(async () => {
      await jobs?.dispose();
      await harness?.close();
    });

    it('injects a finished job’s completion at the top of the next turn', async () => {
      jobs = new BackgroundJobs({ runner: new ChildProcessRunner(), clock: systemClock });
      harness = await startHarness(
        protocol,
        {
          name: 'background',
          turns: [
            {
              text: 'Starting it.',
              toolCalls: [{ id: 'call_bg', name: 'background_run', arguments: { command: 'echo bg-probe-$((6*7))' } }],
            },
            { text: 'It runs in the background.' },
            { text: 'The job printed bg-probe-42.' },
          ],
        },
        {
          tools: createBackgroundTools(jobs, () => undefined),
          inboxes: [jobs.drainCompleted],
          approvals: { request: async () => ({ approved: true, source: 'user' }) },
        },
      );
      await harness.conversation.submit('run the probe in the background');
      assert.match(JSON.stringify(harness.bodies()[1]), /Started background job bg-1/);
      await waitFor(() => jobs.list()[0]?.status === 'exited', 'the job to end');
      await harness.conversation.submit('what did it print?');
      const last = JSON.stringify(harness.bodies()[2]);
      assert.match(last, /\[Background job bg-1 exited with code 0 after [^\]]*\]\\nLast output:\\nbg-probe-42/);
      assert.equal(
        harness
          .bodies()
          .slice(0, 2)
          .some((body) => JSON.stringify(body).includes('Last output')),
        false,
      );
    });
  });
}
