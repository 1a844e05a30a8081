/**
 * Issue 32, class 18: a bad policy file of any kind — an alias bomb, a huge or sparse file,
 * nesting deep enough to overflow a parser, the wrong types, a key written twice, binary bytes,
 * a FIFO, folder or link loop in its place — is one line naming the file and the problem,
 * nothing of it is applied, the rest of the product runs, and it fails safe: while it is broken
 * every change asks a person (what it meant to deny is unknown), whatever another layer's
 * auto_approve, auto-approve, --yes or "Always" says; the other layers' deny rules still refuse.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { PolicyFile } from '../../src/core/policy/policy-file';
import { layerPolicies } from '../../src/core/policy/policy-layers';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { readPolicyText } from '../../src/node/policy-text';
import { RiskProbe } from '../fixtures/call-risk';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

/** Billion laughs: nine levels of nine aliases each (9⁹ strings once expanded). */
function aliasBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < 9; level += 1) {
    const name = String.fromCharCode(97 + level);
    const previous = String.fromCharCode(96 + level);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
  }
  return `${lines.join('\n')}\ntools:\n  deny: *i\n`;
}

/** Each bad file, written into `file`; the problem the one line must name. */
const BAD_FILES: Array<{ name: string; make: (file: string) => void; problem: RegExp }> = [
  { name: 'an alias bomb', make: (file) => fs.writeFileSync(file, aliasBomb()), problem: /alias bomb/ },
  {
    name: 'a flow sequence nested 5,000 deep',
    make: (file) => fs.writeFileSync(file, `tools:\n  deny: ${'['.repeat(5000)}${']'.repeat(5000)}\n`),
    problem: /nested too deeply/,
  },
  {
    name: 'a 300 KB file',
    make: (file) => fs.writeFileSync(file, `# ${'x'.repeat(300 * 1024)}\ntools: { deny: [bash] }\n`),
    problem: /at most 256 KB/,
  },
  {
    name: 'a 3 GB sparse file',
    make: (file) => {
      fs.writeFileSync(file, 'tools: { deny: [bash] }\n');
      fs.truncateSync(file, 3 * 1024 ** 3);
    },
    problem: /at most 256 KB/,
  },
  {
    name: 'the wrong types',
    make: (file) => fs.writeFileSync(file, 'tools:\n  deny: bash\nbudget:\n  daily_usd: lots\n'),
    problem: /tools\.deny.*expected array/,
  },
  {
    name: 'a key written twice',
    make: (file) => fs.writeFileSync(file, 'tools:\n  deny: [bash]\ntools:\n  allow: ["*"]\n'),
    problem: /written twice/,
  },
  {
    name: 'binary bytes',
    make: (file) => fs.writeFileSync(file, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff, 0xfe])),
    problem: /not a text file/,
  },
  {
    name: 'two YAML documents',
    make: (file) => fs.writeFileSync(file, 'tools: { deny: [bash] }\n---\ntools: { allow: ["*"] }\n'),
    problem: /more than one YAML document/,
  },
  {
    name: 'a list, not a mapping',
    make: (file) => fs.writeFileSync(file, '- bash\n- curl\n'),
    problem: /not a YAML mapping/,
  },
  {
    name: 'a FIFO in its place',
    make: (file) => execFileSync('mkfifo', [file]),
    problem: /not a regular file/,
  },
  { name: 'a folder in its place', make: (file) => fs.mkdirSync(file), problem: /a folder/ },
  {
    name: 'a link to itself',
    make: (file) => fs.symlinkSync(path.basename(file), file),
    problem: /loop of symbolic links/,
  },
];

function badFile(make: (file: string) => void): string {
  const folder = tempFolder('bad-policy');
  const file = path.join(folder, 'agent.yaml');
  make(file);
  return file;
}

/** A user layer that approves everything and denies curl, over the broken file. */
const USER = parseAgentPolicy(
  'tools:\n  bash:\n    deny: ["curl*"]\n    allow: ["*"]\napprovals:\n  auto_approve: ["*", read_only]\n',
).policy!;

describe('adversarial: bad policy files (issue 32, class 18)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe();

  for (const { name, make, problem } of BAD_FILES) {
    describe(name, () => {
      it('is read without blocking, told once in words, and nothing of it is applied', () => {
        const file = badFile(make);
        const told: string[] = [];
        const reader = new PolicyFile((problems) => told.push(problems[0]!.message));
        for (let time = 0; time < 3; time += 1) {
          const read = readPolicyText(file);
          const policy =
            read.kind === 'unusable'
              ? reader.unusable(read.problem)
              : reader.read(read.kind === 'text' ? read.text : undefined);
          assert.equal(policy, undefined);
          assert.equal(reader.broken, true);
        }
        assert.equal(told.length, 1, told.join('\n'));
        assert.match(told[0]!, problem);
      });

      it('fails safe: every change asks a person, even with auto-approve; reads run; other denies hold', async () => {
        const policy = toolPolicyFrom(
          () => layerPolicies({ user: USER }),
          () => undefined,
          () => '.openagent/agent.yaml',
        );
        for (const [tool, input] of [
          ['write_file', { path: 'notes.md', content: 'x' }],
          ['bash', { command: 'echo PROOF' }],
          ['background_run', { command: 'npm test' }],
        ] as const) {
          const result = await probe.outcome(tool, input, { policy, autoApprove: true });
          assert.equal(result.outcome, 'asked', `${tool}: ${result.output}`);
          assert.match(result.request!.risk.inPerson ?? '', /agent\.yaml is broken and not applied/);
        }
        assert.equal((await probe.outcome('read_file', { path: 'notes.md' }, { policy })).outcome, 'ran');
        assert.equal((await probe.outcome('bash', { command: '/usr/bin/curl x' }, { policy })).outcome, 'refused');
      });
    });
  }

  it('a file that cannot be read (permission denied) is broken, not missing', function () {
    if (process.getuid?.() === 0) this.skip(); // root reads it anyway
    const file = badFile((at) => fs.writeFileSync(at, 'tools: { deny: [bash] }\n', { mode: 0 }));
    assert.deepEqual(readPolicyText(file), { kind: 'unusable', problem: 'It cannot be read (permission denied).' });
  });

  it('a missing file is no policy and nothing broken; a good one still applies', () => {
    const reader = new PolicyFile(() => assert.fail('nothing to tell'));
    const missing = readPolicyText(path.join(tempFolder('no-policy'), 'agent.yaml'));
    assert.deepEqual(missing, { kind: 'missing' });
    assert.equal(reader.read(undefined), undefined);
    assert.equal(reader.broken, false);
    const good = badFile((file) => fs.writeFileSync(file, 'tools:\n  deny: [bash]\n'));
    const read = readPolicyText(good);
    assert.equal(read.kind, 'text');
    assert.deepEqual(reader.read(read.kind === 'text' ? read.text : ''), { tools: { deny: ['bash'] } });
    assert.equal(reader.broken, false);
  });

  describe('through the CLI with --yes', () => {
    let server: FakeModelServer;
    beforeEach(async () => {
      server = await FakeModelServer.start({
        scenario: {
          name: 'write under a bad policy',
          turns: [
            { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'PROOF.md', content: 'x\n' } }] },
            { text: 'Answered anyway.' },
          ],
        },
      });
    });
    afterEach(() => server.close());

    for (const { name, make, where } of [
      {
        name: 'an alias bomb in the workspace policy',
        make: (file: string) => fs.writeFileSync(file, aliasBomb()),
        where: 'workspace',
      },
      {
        name: 'a FIFO as the workspace policy',
        make: (file: string) => execFileSync('mkfifo', [file]),
        where: 'workspace',
      },
      { name: "a folder as the user's policy", make: (file: string) => fs.mkdirSync(file), where: 'home' },
      {
        name: "binary bytes in the user's policy",
        make: (file: string) => fs.writeFileSync(file, Buffer.from([0, 0xff, 0x13, 0x37])),
        where: 'home',
      },
    ] as const) {
      it(`${name}: one line naming the file, nothing written, the answer still given`, async () => {
        const workspace = tempFolder('bad-policy-ws');
        const home = tempFolder('bad-policy-home');
        const folder = path.join(where === 'home' ? home : workspace, '.openagent');
        fs.mkdirSync(folder);
        const file = path.join(folder, 'agent.yaml');
        make(file);
        const ran = await runCli([...cliArgs(server, tempFolder('bad-policy-store')), '--yes', 'write it'], {
          cwd: workspace,
          home,
        });
        assert.equal(ran.code, 0, ran.stderr);
        assert.match(ran.stdout, /Answered anyway\./);
        const lines = ran.stderr.split('\n').filter((line) => line.includes('not applying'));
        assert.equal(lines.length, 1, ran.stderr);
        assert.ok(lines[0]!.includes(fs.realpathSync(folder)) || lines[0]!.includes(folder), lines[0]);
        assert.match(lines[0]!, /Until it is fixed, every change asks/);
        assert.ok(!fs.existsSync(path.join(workspace, 'PROOF.md')), 'the write ran under --yes');
      });
    }
  });
});
