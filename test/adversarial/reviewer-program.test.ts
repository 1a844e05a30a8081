/**
 * Hostile reviewer programs (approvals.reviewer, issue 37 item 6), as real processes: one that
 * crashes, exits non-zero after a valid answer, never answers (timeout: ask, its process gone,
 * no zombie), prints 10 MB, prints garbage or a near miss of the format, leaves a child holding
 * its stdout open (in its group, or escaped into a session of its own), cannot be started, or is
 * stopped with the run. Every one of them means `ask`, with words the user reads — never allow.
 */
import assert from 'node:assert/strict';
import { readReviewAnswer } from '../../src/core/policy/reviewer';
import type { ReviewAnswer } from '../../src/core/policy/reviewer';
import { ProgramReviewer } from '../../src/node/reviewer-program';
import {
  allowingThenFailing,
  crashing,
  forkingAHolder,
  isOurZombie,
  isRunning,
  printing,
  printingMegabytes,
  reviewerFor,
  reviewRequest,
  sleepingForever,
  type ReviewerProgram,
} from '../fixtures/reviewer-programs';
import { waitUntil } from '../harness/patience';

const linux = process.platform === 'linux';

async function review(program: ReviewerProgram, timeout = '60s', signal = new AbortController().signal) {
  const started = Date.now();
  const answer = await reviewerFor(program, timeout).review(reviewRequest(), signal);
  return { answer: answer!, ms: Date.now() - started };
}

/** Nothing of `program` runs any more, and we left no zombie of it. */
async function nothingLeft(program: ReviewerProgram, count: number): Promise<void> {
  const pids = await waitUntil(
    () => (program.pids().length >= count ? program.pids() : undefined),
    `${count} process ids`,
  );
  if (!linux) return;
  for (const pid of pids) {
    await waitUntil(() => !isRunning(pid), `process ${pid} to be gone`, 10_000);
    assert.ok(!isOurZombie(pid), `process ${pid} is a zombie of ours`);
  }
}

function assertAsks(answer: ReviewAnswer, reason: RegExp): void {
  assert.equal(answer.decision, 'ask');
  assert.equal(answer.failed, true);
  assert.match(answer.reason, reason);
}

describe('hostile reviewer programs', function () {
  this.timeout(120_000);

  it('a crash asks, saying how it ended and its last words', async () => {
    const { answer } = await review(crashing());
    assertAsks(answer, /^the reviewer program exited with code 1: .*the reviewer exploded/);
  });

  it('a valid allow followed by a non-zero exit asks', async () => {
    const { answer } = await review(allowingThenFailing());
    assertAsks(answer, /^the reviewer program exited with code 3$/);
  });

  it('one that never answers times out into ask, and is killed with no zombie left', async () => {
    const program = sleepingForever();
    const { answer, ms } = await review(program, '1s');
    assertAsks(answer, /^the reviewer program timed out after 1s$/);
    assert.ok(ms >= 900, `it waited the timeout (${ms} ms)`);
    await nothingLeft(program, 1);
  });

  it('10 MB of output is cut at 64 KB: it is stopped and the call asks', async () => {
    const program = printingMegabytes();
    const { answer } = await review(program);
    assertAsks(answer, /^the reviewer program printed more than 64 KB and was stopped$/);
    await nothingLeft(program, 1);
  });

  const garbage: Array<[string, string, RegExp]> = [
    ['plain words', 'yes, go ahead\n', /answer is not JSON: yes, go ahead/],
    ['a bare word', 'allow\n', /answer is not JSON: allow/],
    ['nothing', '', /printed no answer/],
    ['two lines', '{"decision":"allow"}\n{"decision":"deny"}\n', /more than one line/],
    ['an unknown decision', '{"decision":"approve"}\n', /decision/],
    ['a misspelt key', '{"decision":"allow","reasn":"x"}\n', /unknown key "reasn"/],
    ['a number for a reason', '{"decision":"deny","reason":42}\n', /reason/],
    ['an array', '["allow"]\n', /not \{"decision"/],
    ['control characters', '\u001b[31mallow\u0007\n', /not JSON: \\x1b\[31mallow\\x07/],
  ];
  for (const [what, text, reason] of garbage) {
    it(`garbage (${what}) asks`, async () => {
      const { answer } = await review(printing(text));
      assertAsks(answer, reason);
    });
  }

  it('a child holding stdout open does not hold the call: the answer counts, the child is killed', async () => {
    const program = forkingAHolder(false);
    const { answer, ms } = await review(program);
    assert.deepEqual(answer, { decision: 'allow', reason: 'fine' });
    assert.ok(ms < 30_000, `it did not wait on the child (${ms} ms)`);
    await nothingLeft(program, 2);
  });

  it('a child that escaped into its own session is found by its run marker and killed', async function () {
    if (!linux) this.skip();
    const program = forkingAHolder(true);
    const { answer } = await review(program);
    assert.equal(answer.decision, 'allow');
    await nothingLeft(program, 2);
  });

  it('a program that cannot be started asks, saying so', async () => {
    const reviewer = new ProgramReviewer({ setting: () => ({ command: ['/nonexistent/reviewer-program'] }) });
    const answer = (await reviewer.review(reviewRequest(), new AbortController().signal))!;
    assertAsks(answer, /^the reviewer program could not be started \(.*ENOENT/);
  });

  it('a Stop kills it at once', async () => {
    const program = sleepingForever();
    const controller = new AbortController();
    const reviewing = review(program, '10m', controller.signal);
    await waitUntil(() => program.pids().length > 0 || undefined, 'the program to start');
    controller.abort();
    const { ms } = await reviewing;
    assert.ok(ms < 60_000, `stopped well before its 10m timeout (${ms} ms)`);
    await nothingLeft(program, 1);
  });

  it('reads strictly: only one JSON object line with a known decision is an answer', () => {
    assert.deepEqual(readReviewAnswer('{"decision":"deny","reason":"no"}\n'), { decision: 'deny', reason: 'no' });
    assert.deepEqual(readReviewAnswer('  {"decision":"allow"}  \r\n\n'), { decision: 'allow', reason: '' });
    const long = readReviewAnswer(JSON.stringify({ decision: 'deny', reason: 'x'.repeat(5_000) }));
    assert.equal(long.reason.length, 1_000);
    assert.equal(readReviewAnswer('{"decision":"ALLOW"}').decision, 'ask');
    assert.equal(readReviewAnswer('{"decision":"allow"} trailing').decision, 'ask');
  });
});
