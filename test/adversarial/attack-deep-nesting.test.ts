/**
 * Issue 32, item 12, second pass: deeply nested values from outside in places other than tool
 * arguments — the redaction every event, message and trace goes through, an MCP server's tool
 * schemas and structured results, a conversation export someone hands the user. No depth
 * overflows the stack; what is too deep is refused with a clear message, and nothing is lost.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { redactValue } from '../../src/core/llm/redact';
import { createMcpTool, MAX_MCP_DEPTH, nestedTooDeep, resultText } from '../../src/core/mcp/mcp-tool';
import { McpConnections, type McpServerStatus } from '../../src/node/mcp/mcp-connections';
import { importConversation } from '../../src/store/conversation-export';
import { openStore, tempDir } from '../unit/store/store-helpers';

const SECRET = 'sk-attack-deep-0123456789abcdef';

/** `depth` levels of alternating arrays and objects around `inner`. */
function nested(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let level = 0; level < depth; level++) value = level % 2 ? { next: value } : [value];
  return value;
}

/** The innermost value, walked without recursion. */
function innermost(value: unknown): unknown {
  let current = value;
  for (;;) {
    if (Array.isArray(current)) current = current[0];
    else if (current && typeof current === 'object' && 'next' in current) current = current.next;
    else return current;
  }
}

describe('attack: deep nesting outside tool arguments (issue 32, item 12)', function () {
  this.timeout(120_000);

  for (const depth of [10_000, 100_000, 1_000_000])
    it(`redacts a value nested ${depth.toLocaleString('en')} deep, to the bottom`, () => {
      const value = nested(depth, { note: `key ${SECRET}`, apiKey: 'plain' });
      const copy = redactValue(value, [SECRET]);
      const bottom = innermost(copy) as { note: string; apiKey: string };
      assert.ok(!bottom.note.includes(SECRET));
      assert.notEqual(bottom.apiKey, 'plain');
      assert.ok(JSON.stringify(innermost(value)).includes(SECRET), 'the original is untouched');
    });

  it('redacts a cyclic value without looping, keeping the cycle', () => {
    const value: Record<string, unknown> = { text: SECRET };
    value.self = value;
    const copy = redactValue(value, [SECRET]);
    assert.equal(copy.self, copy);
    assert.ok(!String(copy.text).includes(SECRET));
  });

  it('keeps a field named __proto__ as a field, redacted, and pollutes nothing', () => {
    const value = JSON.parse(`{"__proto__": {"token": "${SECRET}", "polluted": true}}`) as Record<string, unknown>;
    const copy = redactValue(value, [SECRET]);
    assert.ok(Object.prototype.hasOwnProperty.call(copy, '__proto__'));
    assert.equal((copy as { polluted?: unknown }).polluted, undefined);
    assert.ok(!JSON.stringify(copy).includes(SECRET));
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  });

  it('an MCP result whose structured content nests 100,000 deep: a clear note, no crash', () => {
    const text = resultText({ structuredContent: nested(100_000, 'x') });
    assert.match(text, new RegExp(`nested more than ${MAX_MCP_DEPTH} levels deep`));
    assert.equal(resultText({ structuredContent: nested(50, 'ok') }).includes('ok'), true);
  });

  it('an MCP tool schema too deep to hash is recognised, a normal one is not', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 20_000; level++) schema = { type: 'object', properties: { a: schema } };
    assert.equal(nestedTooDeep(schema), true);
    const normal = { type: 'object', properties: { path: { type: 'string' } } };
    assert.equal(nestedTooDeep(normal), false);
    assert.equal(
      createMcpTool('server', { name: 'ok', inputSchema: normal }, async () => ({})).name,
      'mcp__server__ok',
    );
  });

  it('imports no conversation export with a message nested 20,000 deep: a clear error, nothing saved', async () => {
    const { store } = await openStore(tempDir());
    let deep = '"x"';
    for (let level = 0; level < 20_000; level++) deep = `[${deep}]`;
    const message = (seq: number, content: string) =>
      `{"id":"m${seq}","conversationId":"a","seq":${seq},"role":"user","content":${content},"createdAt":1}`;
    const json =
      '{"format":"openagent.conversation","version":1,' +
      '"conversation":{"id":"a","title":"Handed over","createdAt":1,"updatedAt":1,"settings":{}},' +
      `"messages":[${message(1, '[{"type":"text","text":"hi"}]')},${message(2, deep)}]}`;
    await assert.rejects(importConversation(store, json), /not an OpenAgent conversation export: message 2 nests/);
    assert.deepEqual(await store.listConversations(), []);
  });
});

describe('attack: an MCP server sending deep values, through the SDK (issue 32, item 12)', function () {
  this.timeout(120_000);
  let mcp: McpConnections | undefined;
  afterEach(() => mcp?.stop());

  it('leaves out a tool whose schema nests 2,000 deep, says so, and notes a result as deep', async () => {
    let statuses: McpServerStatus[] = [];
    mcp = new McpConnections({
      clientName: 'openagent-test',
      clientVersion: '0.0.0',
      onStatus: (latest) => (statuses = latest),
    });
    const server = path.resolve(__dirname, '..', 'fixtures', 'mcp', 'faulty-server.mjs');
    await mcp.start({ faulty: { command: process.execPath, args: [server], env: { FAULTY_DEPTH: '2000' } } });
    const tools = await mcp.tools();
    assert.ok(!tools.some((tool) => tool.name === 'mcp__faulty__deep_schema'));
    assert.ok(
      tools.some((tool) => tool.name === 'mcp__faulty__echo'),
      'the other tools stay',
    );
    assert.equal(statuses[0]?.state, 'connected');
    assert.match(statuses[0]?.error ?? '', /1 of its tools left out: .*nest more than 256 levels deep/);
    const deep = tools.find((tool) => tool.name === 'mcp__faulty__deep_result')!;
    const result = (await deep.execute(
      {},
      {
        conversationId: 'c',
        agentId: 'lead',
        toolCallId: 't',
        signal: new AbortController().signal,
      },
    )) as { output: string };
    assert.match(result.output, /structured content nested more than 256 levels deep — not shown/);
  });
});
