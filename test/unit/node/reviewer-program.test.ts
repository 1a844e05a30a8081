/**
 * The reviewer program (approvals.reviewer, issue 37) as a real process: what it reads on stdin
 * (the call, redacted as the audit trail keeps it, with our assessment, the workspace and the
 * member), and its allow, ask and deny read back with their reasons.
 */
import assert from 'node:assert/strict';
import { ProgramReviewer } from '../../../src/node/reviewer-program';
import {
  answering,
  KNOWN_SECRET,
  reviewerFor,
  reviewRequest,
  SHAPED_KEY,
  tellingItsEnvironment,
} from '../../fixtures/reviewer-programs';

describe('reviewer program', function () {
  this.timeout(60_000);

  for (const decision of ['allow', 'ask', 'deny'] as const) {
    it(`reads its ${decision} and the reason it gives`, async () => {
      const program = answering(decision, `the reviewer says ${decision}`);
      const answer = await reviewerFor(program).review(reviewRequest(), new AbortController().signal);
      assert.deepEqual(answer, { decision, reason: `the reviewer says ${decision} (bash)` });
    });
  }

  it('sends the call as JSON on stdin: redacted arguments, our assessment, the workspace and the member', async () => {
    const program = answering('allow', 'ok');
    await reviewerFor(program).review(reviewRequest(), new AbortController().signal);
    const seen = program.seen();
    assert.ok(seen, 'the program read its input');
    assert.equal(seen.version, 1);
    assert.equal(seen.tool_name, 'bash');
    assert.equal(seen.workspace, '/work/repo');
    assert.equal(seen.member, 'bob@corp');
    assert.equal(seen.session_id, 'conv-1');
    assert.equal(seen.agent_id, 'lead');
    assert.equal(seen.tool_use_id, 'call-1');
    assert.deepEqual(seen.assessment, {
      decision: 'ask',
      reason: 'asks: the tool changes things, and no rule allows it',
    });
    const text = JSON.stringify(seen);
    assert.match(String(seen.command), /^deploy --token \S+ --key \S+$/);
    assert.ok(!text.includes(KNOWN_SECRET), `the key in use reached the reviewer: ${text}`);
    assert.ok(!text.includes(SHAPED_KEY), `a key-shaped string reached the reviewer: ${text}`);
    assert.match(text, /\[REDACTED\]/);
  });

  it('starts without the user’s keys: a team’s program gets the scrubbed environment commands get', async () => {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ANTHROPIC_API_KEY: 'sk-ant-not-for-the-reviewer',
      GITHUB_TOKEN: 'ghp_not_for_the_reviewer_either',
      BASH_ENV: '/tmp/startup',
      REVIEW_MODE: 'strict',
    };
    const answer = await reviewerFor(tellingItsEnvironment(), '60s', env).review(
      reviewRequest(),
      new AbortController().signal,
    );
    const names = answer?.reason.replace(/ \(bash\)$/, '').split(' ') ?? [];
    assert.ok(names.includes('REVIEW_MODE') && names.includes('PATH'), names.join(' '));
    for (const secret of ['ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'BASH_ENV'])
      assert.ok(!names.includes(secret), `${secret} reached the reviewer: ${names.join(' ')}`);
  });

  it('is not run at all without a reviewer in the policy', async () => {
    const reviewer = new ProgramReviewer({ setting: () => undefined });
    assert.equal(await reviewer.review(reviewRequest(), new AbortController().signal), undefined);
  });
});
