/**
 * Issue 32, item 1, for the agents an agent starts: a sub-agent (`task`) and a teammate
 * (`spawn_teammate`) read through the same gates as the lead, not around them. A conversation
 * session as the hosts build it (real workspace tools, ripgrep, the secret-file walk), auto-approve
 * on and a user who says no: the hostile searches and reads they make leave no secret in what the
 * model is sent, and every read of a secret was asked about.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalRequest } from '../../src/core/policy/approval';
import { createWorkspaceTools } from '../../src/core/tools/builtin/workspace-tools';
import { FileTaskStorage } from '../../src/node/file-task-storage';
import { FileTeamStorage } from '../../src/node/file-team-storage';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { findRipgrep, RipgrepSearch } from '../../src/node/ripgrep-search';
import { SecretFiles } from '../../src/node/secret-files';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { ScenarioToolCall } from '../fixtures/fake-model-server/scenario';
import { sessionOn } from '../unit/core/session/session-harness';

const MARKERS = ['MARKER_ENV_a91f', 'MARKER_KEY_0c3d', 'MARKER_SSH_77e2'];

/** The hostile calls each agent makes: globs, links, `..`, case, absolute paths. */
function hostileCalls(root: string): ScenarioToolCall[] {
  return [
    { name: 'search_files', arguments: { pattern: 'MARKER', glob: '**/.e*' } },
    { name: 'search_files', arguments: { pattern: 'MARKER', glob: '{.env,x}' } },
    { name: 'search_files', arguments: { pattern: 'MARKER', path: 'mirror' } },
    { name: 'search_files', arguments: { pattern: 'MARKER', path: 'sshlink' } },
    { name: 'read_file', arguments: { path: 'notes.txt' } },
    { name: 'read_file', arguments: { path: 'src/../.env' } },
    { name: 'read_file', arguments: { path: `${root}/keys/deploy.key` } },
  ].map((call, index) => ({ id: `hostile_${index}`, ...call }));
}

function workspaceWithSecrets(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-secret-agents-')));
  const files: Record<string, string> = {
    '.env': 'API_KEY=MARKER_ENV_a91f\n',
    'keys/deploy.key': 'MARKER_KEY_0c3d\n',
    '.ssh/config': 'IdentityFile MARKER_SSH_77e2\n',
    'src/app.ts': 'export const key = process.env.API_KEY; // MARKER_PUBLIC\n',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  fs.symlinkSync('.env', path.join(root, 'notes.txt'));
  fs.symlinkSync('.ssh', path.join(root, 'sshlink'));
  fs.symlinkSync('.', path.join(root, 'mirror'));
  return root;
}

async function until(condition: () => boolean, what: string | (() => string)): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function sessionIn(root: string, server: FakeModelServer, asked: ApprovalRequest[]) {
  const workspace = new NodeWorkspace(root);
  const stores = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-secret-agents-store-'));
  return sessionOn(server, {
    workspace: () => workspace,
    workspaceRoot: () => root,
    secretFiles: new SecretFiles().find,
    taskStorage: new FileTaskStorage(path.join(stores, 'tasks')),
    teamStorage: new FileTeamStorage(path.join(stores, 'teams')),
    tools: (tracked) =>
      createWorkspaceTools({
        files: tracked ?? workspace,
        search: new RipgrepSearch(findRipgrep(['/usr/bin/rg'])),
        shell: { run: () => Promise.reject(new Error('no shell in this test')) } as never,
        cwd: () => root,
        knowledge: [],
      }),
    // The user, asked, says no.
    approvals: { request: async (request) => (asked.push(request), { approved: false, source: 'user' }) },
  });
}

/** What the model was sent, all agents together, and the reads of secrets that were asked about. */
function assertNothingLeaked(server: FakeModelServer, asked: ApprovalRequest[]): void {
  const sent = JSON.stringify(server.modelCalls.map((call) => call.body));
  assert.deepEqual(
    MARKERS.filter((marker) => sent.includes(marker)),
    [],
    'a secret reached the model',
  );
  assert.match(sent, /MARKER_PUBLIC/, 'the hostile searches ran (and found the ordinary file)');
  const questions = asked.map((request) => `${request.toolName} ${JSON.stringify(request.input)}`);
  for (const expected of [
    /search_files.*sshlink/,
    /read_file.*notes\.txt/,
    /read_file.*src\/\.\.\/\.env/,
    /deploy\.key/,
  ])
    assert.ok(
      questions.some((question) => expected.test(question)),
      `not asked: ${expected} in ${questions.join('\n')}`,
    );
}

describe('adversarial: sub-agents and teammates read secrets through the same gate (issue 32.1)', function () {
  this.timeout(300_000);

  it('an explore sub-agent: its hostile searches and reads ask, and nothing secret reaches the model', async () => {
    const root = workspaceWithSecrets();
    const server = await FakeModelServer.start({
      scenario: {
        name: 'sub-agent hunts secrets',
        turns: [
          {
            toolCalls: [
              { id: 'task', name: 'task', arguments: { kind: 'explore', description: 'Hunt', prompt: 'Find keys.' } },
            ],
          },
          { toolCalls: hostileCalls(root) },
          { text: 'Nothing found.' },
          { text: 'Done.' },
        ],
      },
    });
    const asked: ApprovalRequest[] = [];
    try {
      const { session, run } = sessionIn(root, server, asked);
      session.switches.setAutoApprove(true);
      await run('look around with a sub-agent');
      assert.equal(server.modelCalls.length, 4);
      assertNothingLeaked(server, asked);
      await session.dispose();
    } finally {
      await server.close();
    }
  });

  it('a teammate: its hostile searches and reads ask, and nothing secret reaches the model', async () => {
    const root = workspaceWithSecrets();
    const server = await FakeModelServer.start({
      scenario: {
        name: 'teammate hunts secrets',
        whenExhausted: 'echo',
        turns: [
          {
            match: 'start a team',
            toolCalls: [
              { id: 's', name: 'spawn_teammate', arguments: { name: 'alice', role: 'helper', prompt: 'Hunt keys.' } },
            ],
          },
          { match: 'Hunt keys', toolCalls: hostileCalls(root) },
          // Whichever asks next, the lead or alice, gets a plain answer.
          { match: '', text: 'Nothing more.' },
          { match: '', text: 'Nothing more.' },
        ],
      },
    });
    const asked: ApprovalRequest[] = [];
    try {
      const { session, events, run } = sessionIn(root, server, asked);
      session.switches.setAutoApprove(true);
      session.switches.setTeams(true);
      await run('start a team');
      const aliceResults = () =>
        events.filter((event) => event.type === 'tool_result' && event.agentId === 'alice').length;
      await until(
        () => aliceResults() >= hostileCalls(root).length,
        () => `alice’s calls (${aliceResults()} done)`,
      );
      await until(
        () => server.modelCalls.some((call) => JSON.stringify(call.body).includes('MARKER_PUBLIC')),
        'alice to send her results to the model',
      );
      assertNothingLeaked(server, asked);
      session.reset();
      await session.dispose();
    } finally {
      await server.close();
    }
  });
});
