import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalRequest } from '../../../../src/core/policy/approval';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { sessionOn } from '../session/session-harness';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { parseScenario, type ScenarioInput } from '../../../fixtures/fake-model-server/scenario';

const PLAN = '1. Create notes.md\n2. Check it';
const write = { id: 'w', name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n' } };

function offered(server: FakeModelServer, call: number): string[] {
  return (server.modelCalls[call]?.body as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
}

async function planSession(scenario: ScenarioInput, approve: (request: ApprovalRequest) => boolean) {
  const server = await FakeModelServer.start({ scenario: parseScenario(scenario) });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-plan-'));
  const asked: string[] = [];
  const { session, events, run } = sessionOn(server, {
    workspace: () => new NodeWorkspace(root),
    tools: (workspace) => createFileTools(workspace!),
    approvals: {
      request: async (request) => {
        asked.push(`${request.toolName}: ${request.summary}`);
        return { approved: approve(request), source: 'user' };
      },
    },
    planModeDefault: () => true,
  });
  return { server, root, events, asked, session, run };
}

describe('plan mode', () => {
  it('offers only reading tools until the plan is approved, then carries it out in the same run', async () => {
    const { server, root, events, asked, run } = await planSession(
      {
        name: 'plan then act',
        turns: [
          { toolCalls: [write] },
          { toolCalls: [{ id: 'p', name: 'present_plan', arguments: { plan: PLAN } }] },
          { toolCalls: [write] },
          { text: 'Created notes.md.' },
        ],
      },
      () => true,
    );
    try {
      await run('make notes');
      assert.ok(offered(server, 0).includes('read_file'));
      assert.ok(offered(server, 0).includes('present_plan'));
      assert.ok(!offered(server, 0).includes('write_file'));
      assert.match(JSON.stringify(server.modelCalls[0]?.body), /Plan mode is on/);
      assert.match(JSON.stringify(server.modelCalls[1]?.body), /no tool named \\"write_file\\" available now/);
      assert.deepEqual(asked, ['present_plan: carry out its plan (2 steps)', 'write_file: Write notes.md']);
      assert.ok(offered(server, 2).includes('write_file'), 'approved: writing tools offered at the next call');
      assert.ok(!offered(server, 2).includes('present_plan'));
      assert.equal(fs.readFileSync(path.join(root, 'notes.md'), 'utf8'), '# Notes\n');
      const switches = events.filter((event) => event.type === 'plan_mode');
      assert.deepEqual(
        switches.map((event) => event.type === 'plan_mode' && [event.active, event.reason]),
        [
          [true, 'user'],
          [false, 'plan_approved'],
        ],
      );
    } finally {
      await server.close();
    }
  });

  it('stays in plan mode when the plan is denied, and can be switched off by the user', async () => {
    const { server, root, session, run } = await planSession(
      {
        name: 'plan denied',
        turns: [
          { toolCalls: [{ id: 'p', name: 'present_plan', arguments: { plan: PLAN } }] },
          { text: 'What should I change?' },
          { toolCalls: [write] },
          { text: 'Done.' },
        ],
      },
      (request) => request.toolName !== 'present_plan',
    );
    try {
      await run('make notes');
      assert.equal(session.planModeActive, true);
      assert.match(JSON.stringify(server.modelCalls[1]?.body), /denied/i);
      session.setPlanMode(false);
      await run('just do it');
      assert.match(JSON.stringify(server.modelCalls[2]?.body), /Plan mode is off/);
      assert.ok(offered(server, 2).includes('write_file'));
      assert.equal(fs.existsSync(path.join(root, 'notes.md')), true);
    } finally {
      await server.close();
    }
  });
});
