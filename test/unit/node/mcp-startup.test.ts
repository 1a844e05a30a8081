/**
 * From the files on disk to the servers that start: the user's own start unasked, a workspace's
 * only once allowed (asked without waiting, remembered by fingerprint), inputs asked only for
 * allowed servers and declared inputs, env files merged, and an untrusted workspace not read.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpVariableContext } from '../../../src/core/mcp/mcp-definitions';
import type { McpInputDefinition } from '../../../src/core/mcp/vscode-mcp-json';
import { mcpDefinitionFingerprint } from '../../../src/node/mcp/mcp-fingerprint';
import { readMcpDefinitions } from '../../../src/node/mcp/mcp-sources';
import {
  planMcpStart,
  type McpApprovalPort,
  type McpDecision,
  type McpStartupDeps,
} from '../../../src/node/mcp/mcp-startup';

class FakeApprovals implements McpApprovalPort {
  readonly decisions = new Map<string, McpDecision>();
  readonly asked: string[] = [];
  answer: McpDecision | undefined = 'allowed';
  decision(fingerprint: string) {
    return this.decisions.get(fingerprint);
  }
  async ask(fingerprint: string, name: string, source: string, description: string) {
    this.asked.push(`${name} from ${source}: ${description}`);
    if (this.answer) this.decisions.set(fingerprint, this.answer);
    return this.answer;
  }
}

describe('MCP definitions to servers', () => {
  let root: string;
  let userFolder: string;
  let approvals: FakeApprovals;
  let askedInputs: string[];
  let inputValues: Record<string, string | undefined>;
  let allowedCalls: number;

  const deps = (): McpStartupDeps => ({
    approvals,
    inputs: {
      value: async (input: McpInputDefinition) => {
        askedInputs.push(input.id);
        return inputValues[input.id];
      },
    },
    variables: (input): McpVariableContext => ({
      workspaceFolder: root,
      userHome: '/home/u',
      env: {},
      pathSeparator: '/',
      input,
    }),
    workspaceRoot: () => root,
    userFolder,
    onAllowed: () => allowedCalls++,
    onChanged: () => undefined,
  });

  const write = (relative: string, content: object) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), JSON.stringify(content));
  };

  const read = (trusted = true) =>
    readMcpDefinitions({
      settings: { mine: { command: 'my-server' } },
      userFile: path.join(userFolder, 'mcp.json'),
      workspaceRoot: root,
      workspaceTrusted: trusted,
    });

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-mcp-start-')));
    userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-mcp-user-'));
    approvals = new FakeApprovals();
    askedInputs = [];
    inputValues = { token: 'tok-123' };
    allowedCalls = 0;
    write('.vscode/mcp.json', {
      inputs: [{ type: 'promptString', id: 'token', password: true }],
      servers: {
        repo: { command: 'node', args: ['${workspaceFolder}/s.js'], env: { TOKEN: '${input:token}' }, envFile: '.env' },
      },
    });
    fs.writeFileSync(path.join(root, '.env'), 'FROM_FILE=1\n');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(userFolder, { recursive: true, force: true });
  });

  it("an untrusted workspace's files are not read: only the user's servers", async () => {
    write('.mcp.json', { mcpServers: { portable: { command: 'x' } } });
    const sources = await read(false);
    assert.deepEqual(
      sources.definitions.map((definition) => definition.name),
      ['mine'],
    );
    assert.deepEqual(sources.problems, []);
  });

  it("a workspace definition never decided is asked about without waiting and does not start; the user's starts", async () => {
    let answer: (decision: McpDecision) => void = () => undefined;
    approvals.ask = (fingerprint, name, source, description) => {
      approvals.asked.push(`${name} from ${source}: ${description}`);
      return new Promise((resolve) => (answer = resolve));
    };
    const sources = await read();
    const plan = await planMcpStart(sources.definitions, sources.inputs, deps());
    assert.deepEqual(Object.keys(plan.servers), ['mine']);
    assert.deepEqual(approvals.asked, [
      'repo from .vscode/mcp.json: node ${workspaceFolder}/s.js · env: TOKEN, FROM_FILE · env file: .env · values from variables: TOKEN: ${input:token}',
    ]);
    assert.deepEqual(askedInputs, [], 'no input is asked for a server not allowed');
    assert.match(plan.held[0]!.error!, /waiting for your approval/);
    answer('allowed');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(allowedCalls, 1, 'Allow restarts the servers');
  });

  it('an allowed definition starts with its input asked and its variables and env file resolved', async () => {
    const sources = await read();
    await planMcpStart(sources.definitions, sources.inputs, deps());
    const plan = await planMcpStart(sources.definitions, sources.inputs, deps());
    assert.deepEqual(plan.servers.repo, {
      command: 'node',
      args: [`${root}/s.js`],
      env: { FROM_FILE: '1', TOKEN: 'tok-123' },
    });
    assert.deepEqual(plan.held, []);
    assert.deepEqual(askedInputs, ['token']);
  });

  it('refused: held with a reason and not asked again; a new name in the env file asks again', async () => {
    approvals.answer = 'refused';
    const sources = await read();
    await planMcpStart(sources.definitions, sources.inputs, deps());
    const again = await planMcpStart(sources.definitions, sources.inputs, deps());
    assert.equal(approvals.asked.length, 1);
    assert.deepEqual(Object.keys(again.servers), ['mine']);
    assert.match(again.held[0]!.error!, /^not allowed: you refused this definition in \.vscode\/mcp\.json/);
    fs.writeFileSync(path.join(root, '.env'), 'FROM_FILE=1\nNODE_OPTIONS=--require ./x.js\n');
    await planMcpStart(sources.definitions, sources.inputs, deps());
    assert.equal(approvals.asked.length, 2);
    assert.match(approvals.asked[1]!, /env: TOKEN, FROM_FILE, NODE_OPTIONS/);
  });

  it('an input not given or not declared holds the server with a reason', async () => {
    const sources = await read();
    const repo = sources.definitions.find((definition) => definition.name === 'repo')!;
    const { fingerprint } = await mcpDefinitionFingerprint(repo, {
      root,
      variables: deps().variables(() => undefined),
      envFromFile: { FROM_FILE: '1' },
    });
    approvals.decisions.set(fingerprint, 'allowed');
    inputValues = {};
    const notGiven = await planMcpStart(sources.definitions, sources.inputs, deps());
    assert.match(notGiven.held[0]!.error!, /the input "token" was not given/);
    const undeclared = await planMcpStart(sources.definitions, [], deps());
    assert.match(undeclared.held[0]!.error!, /\$\{input:token\} is used but not declared/);
    assert.equal(notGiven.problems.length, 1);
  });

  it("reads the user's mcp.json (its own env file beside it) and reports a broken workspace file", async () => {
    fs.writeFileSync(
      path.join(userFolder, 'mcp.json'),
      '{ // mine\n "servers": { "user-one": { "command": "u", "envFile": "user.env" }, }, }',
    );
    fs.writeFileSync(path.join(userFolder, 'user.env'), 'USER_KEY=k\n');
    write('.mcp.json', {});
    fs.writeFileSync(path.join(root, '.mcp.json'), '{"mcpServers": ');
    const sources = await read();
    assert.deepEqual(
      sources.definitions.map((definition) => `${definition.name} ${definition.source}`),
      ['mine settings (openagent.mcpServers)', 'user-one user mcp.json', 'repo .vscode/mcp.json'],
    );
    assert.match(
      sources.problems.map((problem) => `${problem.source}: ${problem.message}`).join('\n'),
      /^\.mcp\.json: not valid JSON/,
    );
    const plan = await planMcpStart(sources.definitions.slice(0, 2), sources.inputs, deps());
    assert.deepEqual(plan.servers['user-one'], { command: 'u', args: [], env: { USER_KEY: 'k' } });
    assert.deepEqual(approvals.asked, [], "the user's own servers are never asked about");
  });
});
