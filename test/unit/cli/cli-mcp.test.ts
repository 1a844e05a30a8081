/**
 * MCP servers in the CLI from VS Code's files: the user's mcp.json starts unasked (its input
 * asked on the terminal), the folder's .vscode/mcp.json only once allowed there — remembered
 * for the next run — and without a terminal nothing is asked: the reason names the server and
 * the input.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { cliArgs, offeredTools, runCli, tempFolder } from './cli-helpers';

const EVERYTHING = path.resolve(
  __dirname,
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const TOKEN = 'cli-input-Tq4Wz8Nc2Rv6';

describe('openagent CLI: MCP servers from mcp.json files', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let workspace: string;
  let store: string;
  let config: string;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: { name: 'mcp', turns: [], whenExhausted: 'echo' } });
    workspace = tempFolder('ws');
    store = tempFolder('store');
    config = tempFolder('config');
    fs.mkdirSync(path.join(config, 'Code', 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(config, 'Code', 'User', 'mcp.json'),
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'tok', description: 'Token of mine', password: true }],
        servers: { mine: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { TOK: '${input:tok}' } } },
      }),
    );
    fs.mkdirSync(path.join(workspace, '.vscode'));
    fs.writeFileSync(
      path.join(workspace, '.vscode', 'mcp.json'),
      '{ // the folder\'s\n "servers": { "everything": { "command": ' +
        JSON.stringify(process.execPath) +
        ', "args": [' +
        JSON.stringify(EVERYTHING) +
        ', "stdio"] }, }, }',
    );
  });
  afterEach(() => server.close());

  /** The MCP servers whose tools the first model call of the run that began at `from` offered. */
  const mcpTools = (from = 0) =>
    offeredTools(server.modelCalls[from])
      .filter((name) => name.startsWith('mcp__'))
      .map((name) => name.split('__')[1])
      .filter((name, index, all) => all.indexOf(name) === index);

  it('without a terminal: nothing is asked, and the reasons name the server and the input', async () => {
    const ran = await runCli([...cliArgs(server, store), 'probe'], {
      cwd: workspace,
      env: { XDG_CONFIG_HOME: config },
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /MCP server "mine" in user mcp\.json: the input "tok" was not given \(run openagent in a terminal to be asked\)/,
    );
    assert.match(
      ran.stderr,
      /MCP server "everything" not started: the question got no answer \(run openagent in a terminal to be asked\)/,
    );
    assert.deepEqual(mcpTools(), []);
  });

  it('on the terminal: the input and the folder server are asked; the decision is kept for the next run', async () => {
    const ran = await runCli([...cliArgs(server, store), '-i'], {
      cwd: workspace,
      env: { XDG_CONFIG_HOME: config },
      input: `probe\n${TOKEN}\ny\n`,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /MCP input "tok" for user mcp\.json: Token of mine \(shown as you type it\): /);
    assert.match(
      ran.stdout,
      new RegExp(
        `Start MCP server "everything" from \\.vscode/mcp\\.json\\? ${process.execPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} .*index\\.js stdio\\n\\[y\\]es / \\[n\\]o: `,
      ),
    );
    assert.deepEqual(mcpTools(), ['mine', 'everything']);
    assert.ok(!JSON.stringify(server.modelCalls).includes(TOKEN), 'the input reached the model');

    // Next run, no terminal: the folder's server is allowed already; the user's input is asked per run.
    let from = server.modelCalls.length;
    const again = await runCli([...cliArgs(server, store), 'probe again'], {
      cwd: workspace,
      env: { XDG_CONFIG_HOME: config },
    });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(mcpTools(from), ['everything']);
    assert.doesNotMatch(again.stderr, /"everything"/);

    // A changed definition (a new variable) is another decision: not started until asked.
    const file = path.join(workspace, '.vscode', 'mcp.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"stdio"]', '"stdio"], "env": { "NEW_NAME": "1" }'));
    from = server.modelCalls.length;
    const changed = await runCli([...cliArgs(server, store), 'probe changed'], {
      cwd: workspace,
      env: { XDG_CONFIG_HOME: config },
    });
    assert.match(changed.stderr, /MCP server "everything" not started: the question got no answer/);
    assert.deepEqual(mcpTools(from), []);
  });
});
