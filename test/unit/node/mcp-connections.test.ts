/**
 * MCP through the real SDK against real servers from the npm registry — server-everything over
 * stdio, Streamable HTTP and SSE, server-filesystem over stdio — and a misbehaving server for
 * the fault inputs of TESTING.md (hang, crash mid-call, 100 MB, invalid JSON-RPC, a built-in's
 * name, a server that cannot start).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpJson } from '../../../src/core/mcp/mcp-config';
import { NO_RISK } from '../../../src/core/policy/call-risk';
import { sessionRuleKey, sessionRuleLabel } from '../../../src/core/policy/session-rules';
import type { AnyTool } from '../../../src/core/tools/tool';
import { McpConnections, type McpServerStatus } from '../../../src/node/mcp/mcp-connections';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../../harness/patience';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FAULTY = path.join(ROOT, 'test/fixtures/mcp/faulty-server.mjs');
const node = process.execPath;

async function call(
  tool: AnyTool | undefined,
  input: Record<string, unknown> = {},
  signal = new AbortController().signal,
) {
  assert.ok(tool, 'the tool exists');
  try {
    const result = await tool.execute(input, { conversationId: 'c', agentId: 'lead', toolCallId: 't', signal });
    return typeof result === 'string'
      ? { output: result, isError: false }
      : { ...result, isError: result.isError ?? false };
  } catch (error) {
    return { output: (error as Error).message, isError: true, thrown: true };
  }
}

const byName = (tools: AnyTool[], name: string) => tools.find((tool) => tool.name === name);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts server-everything in an HTTP mode and waits until it listens. */
async function everythingOverHttp(mode: 'streamableHttp' | 'sse'): Promise<{ port: number; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(node, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running on port/i.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${output}`)));
  });
  return { port, process: child };
}

describe('MCP servers through the SDK', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let mcp: McpConnections;
  let statuses: McpServerStatus[];
  const start = async (servers: Parameters<McpConnections['start']>[0], options = {}) => {
    mcp = new McpConnections({
      clientName: 'openagent-test',
      clientVersion: '0.0.0',
      onStatus: (latest) => (statuses = latest),
      ...options,
    });
    await mcp.start(servers);
    return mcp.tools();
  };
  afterEach(() => mcp?.stop());

  it('server-everything over stdio: namespaced tools that ask for approval, text and images as text', async () => {
    const tools = await start({ everything: { command: node, args: [EVERYTHING, 'stdio'], env: {} } });
    assert.deepEqual(statuses, [
      { name: 'everything', transport: 'stdio', state: 'connected', toolCount: tools.length },
    ]);
    const echo = byName(tools, 'mcp__everything__echo');
    assert.equal(echo?.needsApproval, true);
    assert.equal(echo?.readOnly, false);
    assert.match(echo!.description, /from the MCP server "everything"/);
    assert.deepEqual((echo!.inputJsonSchema as { required?: string[] }).required, ['message']);
    assert.deepEqual(await call(echo, { message: 'hello' }), { output: 'Echo: hello', isError: false });
    assert.match((await call(byName(tools, 'mcp__everything__get-sum'), { a: 2, b: 40 })).output, /42/);
    assert.match(
      (await call(byName(tools, 'mcp__everything__get-tiny-image'))).output,
      /\[image image\/png, \d+ bytes — not shown\]/,
    );
  });

  it('server-everything over Streamable HTTP, and over SSE as the fallback', async () => {
    for (const [mode, urlPath, transport] of [
      ['streamableHttp', '/mcp', 'http'],
      ['sse', '/sse', 'sse'],
    ] as const) {
      const server = await everythingOverHttp(mode);
      try {
        const tools = await start({ remote: { url: `http://127.0.0.1:${server.port}${urlPath}`, headers: {} } });
        assert.equal(statuses[0]?.state, 'connected', JSON.stringify(statuses));
        assert.equal(statuses[0]?.transport, transport);
        assert.deepEqual(await call(byName(tools, 'mcp__remote__echo'), { message: mode }), {
          output: `Echo: ${mode}`,
          isError: false,
        });
        await mcp.stop();
      } finally {
        server.process.kill();
      }
    }
  });

  it('server-filesystem over stdio reads the folder it was given', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-mcp-fs-'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'MCP can read this.\n');
    try {
      const tools = await start({ files: { command: node, args: [FILESYSTEM, dir], env: {} } });
      const read = byName(tools, 'mcp__files__read_text_file') ?? byName(tools, 'mcp__files__read_file');
      const result = await call(read, { path: path.join(dir, 'notes.txt') });
      assert.equal(result.isError, false, result.output);
      assert.match(result.output, /MCP can read this\./);
      const outside = await call(read, { path: '/etc/hostname' });
      assert.equal(outside.isError, true, 'the server refuses paths outside its folder');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a misbehaving server', () => {
    const faulty = { faulty: { command: node, args: [FAULTY], env: {} } };

    it('times out a call that never returns, and stays usable', async () => {
      const tools = await start(faulty, { callTimeoutMs: 500 });
      const result = await call(byName(tools, 'mcp__faulty__hang'));
      assert.equal(result.isError, true);
      assert.equal(result.output, 'The MCP server "faulty" did not answer hang within 1 s.');
      assert.equal((await call(byName(tools, 'mcp__faulty__echo'), { text: 'after' })).output, 'echo: after');
    });

    it('reports a crash mid-call; later calls say to restart; a restart brings it back', async () => {
      const tools = await start(faulty);
      const crashed = await call(byName(tools, 'mcp__faulty__crash'));
      assert.equal(crashed.isError, true);
      assert.match(crashed.output, /^The MCP server "faulty" failed on crash: /);
      assert.equal(statuses[0]?.state, 'error');
      assert.match(statuses[0]!.error!, /closed/);
      const after = await call(byName(tools, 'mcp__faulty__echo'), { text: 'x' });
      assert.match(after.output, /is not connected .*Restart MCP Servers/);
      const restarted = await (await mcp.start(faulty), mcp.tools());
      assert.equal((await call(byName(restarted, 'mcp__faulty__echo'), { text: 'back' })).output, 'echo: back');
    });

    it('takes a 5 MB answer, and refuses a 100 MB one with the reason instead of holding it all', async () => {
      const tools = await start(faulty);
      const five = await call(byName(tools, 'mcp__faulty__huge'), { megabytes: 5 });
      assert.equal(five.output.length, 5 * 1024 * 1024, 'the loop cuts it for the model (maxToolOutputChars)');
      const hundred = await call(byName(tools, 'mcp__faulty__huge'), { megabytes: 100 });
      assert.equal(hundred.isError, true);
      assert.match(hundred.output, /failed on huge: .*ReadBuffer exceeded maximum size of 10485760 bytes/);
      assert.equal(statuses[0]?.state, 'error');
      const restarted = await (await mcp.start(faulty), mcp.tools());
      assert.equal((await call(byName(restarted, 'mcp__faulty__echo'), { text: 'back' })).output, 'echo: back');
    });

    it('survives a line that is not JSON-RPC', async () => {
      const tools = await start(faulty);
      assert.equal((await call(byName(tools, 'mcp__faulty__garbage'))).output, 'still answering after the garbage');
      assert.equal(statuses[0]?.state, 'connected');
    });

    it('never shadows a built-in tool: its read_file is mcp__faulty__read_file', async () => {
      const tools = await start(faulty);
      assert.ok(!tools.some((tool) => tool.name === 'read_file'));
      assert.equal(
        (await call(byName(tools, 'mcp__faulty__read_file'), { path: 'a' })).output,
        'the MCP read_file got a',
      );
    });

    it('asks again when a tool’s definition changed: "Always" covers one version', async () => {
      const [before] = (await start(faulty)).filter((tool) => tool.name === 'mcp__faulty__echo');
      const [same] = (await (await mcp.start(faulty), mcp.tools())).filter((tool) => tool.name === 'mcp__faulty__echo');
      const changed = { faulty: { ...faulty.faulty, env: { FAULTY_TOOL_DESCRIPTION: 'Echo, and also email it.' } } };
      const [after] = (await (await mcp.start(changed), mcp.tools())).filter(
        (tool) => tool.name === 'mcp__faulty__echo',
      );
      assert.equal(before!.version, same!.version);
      assert.notEqual(before!.version, after!.version);
      const key = (tool: AnyTool) =>
        sessionRuleKey({ toolName: tool.name, ...(tool.version ? { toolVersion: tool.version } : {}), risk: NO_RISK });
      assert.notEqual(key(before!), key(after!));
      assert.equal(sessionRuleLabel(key(after!)!), 'all mcp__faulty__echo calls');
    });

    it('reports a server that cannot start, and still serves the others', async () => {
      const tools = await start(
        {
          missing: { command: '/nonexistent/mcp-server', args: [], env: {} },
          exits: { command: node, args: ['-e', 'console.error("bad config"); process.exit(2)'], env: {} },
          ...faulty,
        },
        { connectTimeoutMs: PATIENCE_MS },
      );
      const byServer = Object.fromEntries(statuses.map((status) => [status.name, status]));
      assert.equal(byServer.missing?.state, 'error');
      assert.equal(byServer.exits?.state, 'error');
      assert.match(byServer.exits!.error!, /stderr: bad config/);
      assert.equal(byServer.faulty?.state, 'connected');
      assert.ok(tools.every((tool) => tool.name.startsWith('mcp__faulty__')));
    });
  });

  it('reads .openagent/mcp.json, reporting bad entries and keeping the good ones', () => {
    const parsed = parseMcpJson(
      JSON.stringify({
        mcpServers: {
          good: { command: 'npx', args: ['-y', 'server'] },
          remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
          'bad name!': { command: 'x' },
          noCommand: { args: [] },
          badUrl: { url: 'ftp://example.com' },
          off: { command: 'x', disabled: true },
        },
      }),
      '.openagent/mcp.json',
    );
    assert.deepEqual(Object.keys(parsed.servers), ['good', 'remote']);
    assert.deepEqual(
      parsed.problems.map((problem) => problem.server),
      ['bad name!', 'noCommand', 'badUrl'],
    );
    assert.match(parseMcpJson('{oops', 'f').problems[0]!.message, /^not valid JSON/);
  });
});
