/**
 * Regression: the commands helper agents found running without asking in the second and third
 * rounds of attacks on the command analysis (issue 15) — `sed --in`, `sort -so`, `rg --pre`, npm
 * options in every spelling, links before `..`, `cd` games, glued short options, recursive
 * searches through secrets, git pathspec magic, archives and patches; then sed scripts read
 * the wrong way, `cd`s that may fail, `x://` paths, `@file` arguments, shell state, git
 * rewriting files from its objects, folders holding secrets. Fixed at their roots; each must now
 * be asked about (or refused), in a workspace built the way the helper built it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { RiskProbe } from '../fixtures/call-risk';
import found from './found-by-attackers.json';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const ALLOW =
  '["git status*","git diff*","git log*","npm test*","ls*","cat*","echo*","grep*","rg*","find*","sed*","head*","tail*","wc*"]';
const ALLOW_LIST = toolPolicyFrom(() => parseAgentPolicy(`tools:\n  bash:\n    allow: ${ALLOW}\n`).policy);
const AUTO_APPROVED = toolPolicyFrom(
  () => parseAgentPolicy(`tools:\n  bash:\n    allow: ${ALLOW}\napprovals:\n  auto_approve: [bash]\n`).policy,
);

/** The helper's workspace: protected files, secrets, and links a cloned repository could ship. */
function workspace(): string {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-found-')));
  const root = path.join(base, 'wsp');
  const files: Record<string, string> = {
    '.openagent/agent.yaml': 'tools:\n  bash:\n    allow: ["ls*"]\n',
    '.env': 'API_KEY=sk-secret-123\n',
    '.env.local': 'TOKEN=local\n',
    '.npmrc': '//registry.npmjs.org/:_authToken=npm_secret\n',
    'package.json': '{"name":"w","version":"1.0.0","scripts":{"test":"echo test ok"}}\n',
    'package-lock.json': '{"lockfileVersion":3}\n',
    'src/a.ts': 'export const a = 1;\n',
    'src/config': '[core]\n',
    'src/sub/.keep': '',
    '.github/workflows/ci.yml': 'name: ci\n',
    'keys/server.pem': '-----BEGIN KEY-----\n',
    'keys/id_rsa': 'secret\n',
    '.vscode/settings.json': '{}',
    // Round three's extras: an ignored secret, one in a build folder, a manifest to swap in.
    '.gitignore': '.env.prod\n',
    '.env.prod': 'DB_PASS=prod-secret\n',
    'out/.env': 'SECRET=build\n',
    'tsconfig.json': '{"compilerOptions":{}}\n',
    'test/a.test.ts': 'test("x", () => {});\n',
    'src/evil-pkg.json': '{"name":"w","version":"1.0.0","scripts":{"test":"touch PWN_NPM"}}\n',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  fs.writeFileSync(path.join(base, 'outside-secret.txt'), 'outside\n');
  for (const [link, target] of Object.entries({
    cfg: '.openagent',
    up: '..',
    envlink: '.env',
    sublink: 'src/sub',
    'docs/env': '../.env',
  })) {
    fs.mkdirSync(path.dirname(path.join(root, link)), { recursive: true });
    fs.symlinkSync(target, path.join(root, link));
  }
  execFileSync('git', ['init', '-q', root]);
  fs.symlinkSync('.git/hooks', path.join(root, 'hookslink'));
  return root;
}

describe('adversarial: what attackers found, second round (classes 2 and 3)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe(workspace());
  const cases: Array<[string, readonly string[], ReturnType<typeof toolPolicyFrom>, boolean]> = [
    ['round two, with an allow list', found.allowList, ALLOW_LIST, false],
    ['round two, with bash auto-approved', found.autoApproved, AUTO_APPROVED, true],
    ['round three, with an allow list', found.round3AllowList, ALLOW_LIST, false],
    ['round three, with bash auto-approved', found.round3AutoApproved, AUTO_APPROVED, true],
  ];
  for (const [name, commands, policy, autoApprove] of cases) {
    describe(name, () => {
      for (const command of commands) {
        it(`${JSON.stringify(command)}: not run without asking`, async () => {
          const { outcome } = await probe.outcome('bash', { command }, { policy, autoApprove });
          assert.notEqual(outcome, 'ran');
        });
      }
    });
  }
});
