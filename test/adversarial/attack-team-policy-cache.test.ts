/**
 * Issue 32, class 18, second pass (an attacker's inputs): the team policy kept beside the store
 * (read when the team database does not answer) is a policy file too. A FIFO in its place hung
 * every start with a team configured; `/dev/zero` was read until memory ran out; a folder was
 * silently no policy. Each is now one problem naming the file, nothing of it applied, and every
 * change asks until the team database answers — through the real team plane opener, with a
 * database address that refuses connections.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PolicyProblem } from '../../src/core/policy/agent-policy';
import { openTeamPlane } from '../../src/kit/team-opener';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const UNREACHABLE = 'postgres://member:secret@127.0.0.1:9/team';

function cacheOf(kind: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-team-cache-'));
  const file = path.join(folder, 'team-policy.yaml');
  if (kind === 'a FIFO') execFileSync('mkfifo', [file]);
  if (kind === 'a link to /dev/zero') fs.symlinkSync('/dev/zero', file);
  if (kind === 'a folder') fs.mkdirSync(file);
  if (kind === 'a 3 GB sparse file') {
    fs.writeFileSync(file, 'tools:\n  deny: [bash]\n');
    fs.truncateSync(file, 3 * 1024 ** 3);
  }
  if (kind === 'a link loop') fs.symlinkSync(file, file);
  return file;
}

describe('adversarial: a kept team policy that is no policy text (issue 32, class 18, attacker)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  for (const kind of ['a FIFO', 'a link to /dev/zero', 'a folder', 'a 3 GB sparse file', 'a link loop']) {
    it(`${kind}: the start settles, the problem names the file, nothing applies, changes ask`, async () => {
      const cacheFile = cacheOf(kind);
      const problems: PolicyProblem[][] = [];
      const plane = await openTeamPlane({
        url: UNREACHABLE,
        member: 'attacker@example.invalid',
        cacheFile,
        outbox: async () => undefined,
        onPolicyMistakes: (found) => problems.push(found),
      });
      try {
        // Never hangs: a FIFO read would wait forever for a writer.
        await plane.refresh();
        assert.equal(plane.policy(), undefined);
        assert.equal(plane.policyBroken, true, 'a kept policy that cannot be read must fail safe');
        assert.equal(problems.length, 1, JSON.stringify(problems));
        assert.ok(problems[0]![0]!.message.includes(cacheFile), problems[0]![0]!.message);
        assert.doesNotMatch(problems[0]![0]!.message, /secret/);
      } finally {
        await plane.dispose();
      }
    });
  }

  it('a kept policy that is a readable file still applies while the database is away', async () => {
    const cacheFile = cacheOf('none');
    fs.writeFileSync(cacheFile, 'tools:\n  deny: [bash]\n');
    const plane = await openTeamPlane({
      url: UNREACHABLE,
      member: 'member@example.invalid',
      cacheFile,
      outbox: async () => undefined,
      onPolicyMistakes: () => assert.fail('no mistakes in a good file'),
    });
    try {
      await plane.refresh();
      assert.deepEqual(plane.policy()?.tools?.deny, ['bash']);
      assert.equal(plane.policyBroken, false);
    } finally {
      await plane.dispose();
    }
  });
});
