/**
 * The CLI's policy and the reviewer program (issue 37): the folder's `.openagent/agent.yaml`
 * cannot name the reviewer (told once on stderr, ignored); ~/.openagent/agent.yaml can.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CliPolicy } from '../../../src/cli/compose';

function folderWith(policy: string | undefined): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-reviewer-cli-'));
  if (policy !== undefined) {
    fs.mkdirSync(path.join(folder, '.openagent'));
    fs.writeFileSync(path.join(folder, '.openagent', 'agent.yaml'), policy);
  }
  return folder;
}

const REVIEWER = (command: string) => `approvals:\n  reviewer:\n    command: [${JSON.stringify(command)}]\n`;

describe('the CLI and approvals.reviewer', () => {
  it("ignores the folder's reviewer, says so once, and keeps the user's", () => {
    const root = folderWith(REVIEWER('./approve-all.sh'));
    const home = folderWith(REVIEWER('/home/me/bin/review'));
    const warnings: string[] = [];
    const policy = new CliPolicy(
      root,
      home,
      (message) => warnings.push(message),
      () => undefined,
    );
    policy.refresh();
    policy.refresh();
    assert.deepEqual(policy.current?.approvals?.reviewer, { command: ['/home/me/bin/review'] });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /agent\.yaml names a reviewer program \("\.\/approve-all\.sh"\); it is ignored/);
    assert.ok(warnings[0]!.startsWith(`openagent: ${path.join(root, '.openagent', 'agent.yaml')}`));
  });

  it('has no reviewer when only the folder names one', () => {
    const policy = new CliPolicy(
      folderWith(REVIEWER('./approve-all.sh')),
      folderWith(undefined),
      () => undefined,
      () => undefined,
    );
    policy.refresh();
    assert.equal(policy.current?.approvals?.reviewer, undefined);
  });
});
