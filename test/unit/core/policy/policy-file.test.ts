import assert from 'node:assert/strict';
import type { PolicyProblem } from '../../../../src/core/policy/agent-policy';
import { PolicyFile } from '../../../../src/core/policy/policy-file';

describe('a policy file as both hosts read it', () => {
  it('applies a valid file, applies nothing while it has mistakes, and tells each version once', () => {
    const told: PolicyProblem[][] = [];
    const file = new PolicyFile((problems) => told.push(problems));
    const valid = 'tools:\n  deny: [bash]\n';
    assert.deepEqual(file.read(valid)?.tools?.deny, ['bash']);
    const broken = 'tools:\n  deny: 42\n';
    assert.equal(file.read(broken), undefined);
    assert.equal(file.read(broken), undefined);
    assert.equal(told.length, 1, 'the same broken text is told once');
    assert.equal(file.read(valid)?.tools?.deny?.[0], 'bash');
    assert.equal(file.read(broken), undefined);
    assert.equal(told.length, 1, 'a version already told is not told again');
    assert.equal(file.read(`${broken}# changed\n`), undefined);
    assert.equal(told.length, 2, 'a new broken version is told');
    assert.ok(told[1]![0]!.message.length > 0);
  });

  it('reads no file as no policy', () => {
    const file = new PolicyFile(() => assert.fail('nothing to tell'));
    assert.equal(file.read(undefined), undefined);
    assert.equal(file.current, undefined);
  });
});
