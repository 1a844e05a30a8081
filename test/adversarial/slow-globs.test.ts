/**
 * Globs from outside — the model's list patterns and quoted command patterns, a policy's
 * approver path rules — matched against paths and names built to make a backtracking regular
 * expression run for hours (`*a*a*a…b` against `aaaa…`). The workspace's globs are an automaton
 * (src/core/workspace/glob.ts): each of these answers at once, and still matches what it should.
 * Before, every one of them stalled the thread running the conversation.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CallAssessor } from '../../src/core/policy/call-risk';
import { approversFor } from '../../src/core/policy/approver-rules';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { protectedPlaces } from '../../src/node/sandbox/protected-set';
import { SecretFiles } from '../../src/node/secret-files';
import { toolsFor } from '../fixtures/call-risk';

const SLOW = `${'*a'.repeat(18)}b`;
const LONG_NAME = 'a'.repeat(60);

describe('adversarial: globs built to backtrack', function () {
  // Generous: the old matcher took hours on each; the automaton takes milliseconds.
  this.timeout(60_000);
  let root: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-slow-globs-')));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', LONG_NAME), 'x');
    fs.writeFileSync(path.join(root, 'src', `${LONG_NAME}b`), 'x');
    // A secret file with a long name: quoted command patterns are matched against secret paths.
    fs.writeFileSync(path.join(root, `${LONG_NAME}.pem`), 'key');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("the list tool's pattern (the model's): answers, and lists the one name it matches", async () => {
    const workspace = new NodeWorkspace(root);
    const listed = await workspace.list(root, { recursive: true, limit: 100, pattern: `src/${SLOW}` });
    assert.deepEqual(listed.entries, [`src/${LONG_NAME}b`]);
  });

  it('an approver path rule (a policy file): answers, and still guards what it names', () => {
    const rules = [{ match: { paths: [`src/${SLOW}`] }, by: ['alice@corp'] }];
    const call = (file: string) => ({ toolName: 'write_file', input: { path: file }, paths: [file] });
    assert.equal(approversFor(rules, call(`src/${LONG_NAME}`), root), undefined);
    assert.deepEqual(approversFor(rules, call(`src/${LONG_NAME}b`), root)?.approvers, ['alice@corp']);
    const folder = [{ match: { paths: [`${'*a'.repeat(18)}/`] }, by: ['bob@corp'] }];
    assert.equal(approversFor(folder, call(`${LONG_NAME}x/${LONG_NAME}/y`), root), undefined);
  });

  it("a quoted pattern in a command (the model's), checked against secret files: answers", async () => {
    const workspace = new NodeWorkspace(root);
    const assessor = new CallAssessor(
      () => workspace,
      () => undefined,
      new SecretFiles().find,
      protectedPlaces,
    );
    const bash = toolsFor(workspace).get('bash')!;
    const slow = await assessor.assess(bash, { command: `find . -name '${SLOW}'` }, 'c1');
    assert.ok(slow, 'assessed');
    const secret = await assessor.assess(bash, { command: `find . -name '${'a'.repeat(20)}*.pem'` }, 'c1');
    assert.match(JSON.stringify(secret), /matches a secret file/);
  });
});
