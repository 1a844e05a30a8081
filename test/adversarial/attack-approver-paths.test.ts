/**
 * Attacks on approver rules' `paths` and `bash` (issue 37), through the real executor, the real
 * call assessment over a workspace on disk, the team policy decorator and the team gate: every
 * call here is auto-approved by the policy, so only the approver rule stands between it and
 * running. A call the rule matches must never run or be put to the local person: here no team
 * database is configured, so it is refused saying it needs a named approver.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Hooks } from '../../src/core/agent/hooks';
import { executeToolCall } from '../../src/core/agent/tool-executor';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { CallAssessor } from '../../src/core/policy/call-risk';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { TeamApprovalGate, withApproverRules } from '../../src/core/team/team-approval-gate';
import { ToolRegistry } from '../../src/core/tools/registry';
import type { AnyTool } from '../../src/core/tools/tool';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { protectedPlaces } from '../../src/node/sandbox/protected-set';
import { SecretFiles } from '../../src/node/secret-files';
import { toolsFor } from '../fixtures/call-risk';

const POLICY = `approvals:
  auto_approve: [write_file, edit_file, bash, background_run, "mcp__*"]
  approvers:
    - match: { paths: ["infra/**"], bash: ["git push*"], tools: ["mcp__deploy__*"] }
      by: [alice@corp]
`;

describe('attack: approver rules for paths and commands, through the executor', function () {
  let root: string;
  let tools: Map<string, AnyTool>;
  let assessor: CallAssessor;
  const policy = parseAgentPolicy(POLICY).policy!;

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-approver-paths-')));
    fs.mkdirSync(path.join(root, 'infra'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'infra/main.tf'), 'x');
    fs.writeFileSync(path.join(root, 'src/a.ts'), 'x');
    fs.writeFileSync(path.join(root, 'x'), 'x');
    fs.symlinkSync('infra', path.join(root, 'link'));
    fs.symlinkSync('infra/main.tf', path.join(root, 'flink'));
    fs.symlinkSync(path.join(root, 'infra'), path.join(root, 'src', 'deep'));
    const workspace = new NodeWorkspace(root);
    assessor = new CallAssessor(
      () => workspace,
      () => undefined,
      new SecretFiles().find,
      protectedPlaces,
    );
    tools = toolsFor(workspace);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  /** `team` (needs the named approver), `ran`, or `local` (the local person was asked). */
  async function outcome(name: string, input: unknown): Promise<'team' | 'ran' | 'local' | string> {
    const real = tools.get(name.startsWith('mcp__') ? 'mcp__x__act' : name)!;
    let ran = false;
    let asked = false;
    const tool: AnyTool = { ...real, name, execute: async () => ((ran = true), 'ran') };
    const deps = { policy: () => policy, root: () => root };
    const local = { request: async () => ((asked = true), { approved: true, source: 'user' as const }) };
    const gate = new TeamApprovalGate(local, {
      ...deps,
      approvals: () => undefined,
      member: () => 'bob@corp',
      redact: (value) => value,
      newId: () => 'id',
    });
    const result = await executeToolCall(
      { id: 'call', name, input, valid: true, rawArguments: JSON.stringify(input) } as never,
      {
        conversationId: 'c1',
        agentId: 'lead',
        tools: new ToolRegistry([tool]),
        isOffered: () => true,
        hooks: new Hooks(),
        policy: withApproverRules(
          toolPolicyFrom(() => policy),
          deps,
        ),
        assess: (called, calledInput) => assessor.assess(called, calledInput, 'c1'),
        approvals: gate,
        maxToolOutputChars: 10_000,
        emit: () => undefined,
        now: () => 0,
      },
      new AbortController().signal,
    );
    if (/needs a named approver \(alice@corp\)/.test(result.output)) return 'team';
    if (asked) return 'local';
    return ran ? 'ran' : result.output;
  }

  it('follows links into the guarded folder: write_file and shell writes through a linked folder or file', async () => {
    for (const file of ['link/main.tf', 'flink', 'src/deep/new.tf', 'link/../link/main.tf'])
      assert.equal(await outcome('write_file', { path: file, content: 'y' }), 'team', file);
    for (const command of [
      'echo y > link/main.tf',
      'echo y > flink',
      'cp x link/',
      'cp x link',
      'rm -rf link/',
      'cd link; rm -rf *',
      'sed -i s/x/y/ flink',
      'cd src && echo y > deep/new.tf',
    ])
      assert.equal(await outcome('bash', { command }), 'team', command);
  });

  it('takes a path decided only when the command runs as guarded unless it cannot be', async () => {
    for (const command of [
      'echo y > inf*/main.tf',
      'echo y > $D/main.tf',
      'echo y > {infra,x}/main.tf',
      'echo y >> ~/x',
      `echo y > ${root}/i?fra/a`,
      'rm -rf *',
      'echo y | dd of=infra/main.tf',
    ])
      assert.equal(await outcome('bash', { command }), 'team', command);
    // A glob that can only name other files is no reason to ask the approver.
    for (const command of ['cat src/*.ts', 'wc -l *.md', 'ls src/?.ts'])
      assert.notEqual(await outcome('bash', { command }), 'team', command);
  });

  it('holds: the plain spellings of the guarded folder and of the guarded command, and other tools', async () => {
    for (const file of ['infra/main.tf', './infra/../infra/new.tf', path.join(root, 'infra/new.tf')])
      assert.equal(await outcome('write_file', { path: file, content: 'y' }), 'team', file);
    for (const command of [
      'mv x infra/',
      'tee infra/x',
      'rm -rf infra',
      'echo y > in\\fra/main.tf',
      'echo y > "in"fra/main.tf',
      'pushd infra && rm main.tf',
      'ln -sf /etc/passwd infra/main.tf',
      'git  push',
      'git -C . push',
      'git -c x=y push',
      '"git" push',
      'g\\it push',
      '$(echo git) push',
      'command git push',
      'env git push',
      "eval 'git push'",
      'bash -c "git push"',
      'sh -c "git push"',
      'echo x | xargs git push',
      'find . -exec git push \\;',
      'bash <<EOF\ngit push\nEOF',
      'true; git push',
      'true\ngit push',
      'git push &',
      'nohup git push',
    ])
      assert.equal(await outcome('bash', { command }), 'team', command);
    assert.equal(await outcome('background_run', { command: 'git push --force' }), 'team');
    assert.equal(await outcome('mcp__deploy__release', { target: 'prod' }), 'team');
    assert.equal(await outcome('mcp__other__act', { target: 'prod' }), 'ran');
  });
});
