/**
 * Tool results cut to fit the window (issue 32, item 15, attacked), through the CLI against a
 * server that holds an 8k window as llama.cpp does (test/fixtures/window-server): text that costs
 * more than English (CJK, emoji) with no tokenizer to ask, a tokenizer that lies or answers
 * garbage, forty reads at once, one 200 KB line, a window too small for anything. The model must
 * read what it asked for (no compaction summarising the result away, at most one refusal on
 * the way), told how to read the rest; and where nothing can fit, a clear error and the prompt
 * kept.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cutToolResult } from '../../src/core/agent/context/fit-tool-results';
import { resultText } from '../../src/core/mcp/mcp-tool';
import { windowServer, type CountMode, type WindowServerOptions } from '../fixtures/window-server/window-server';
import { runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const CJK_LINE = (index: number) => `第${index}行：这是一个很长的中文句子，用来测试上下文窗口的计算是否正确。😀😀😀`;

async function readThrough(options: {
  files: Record<string, string>;
  calls: WindowServerOptions['calls'];
  count: CountMode;
  window?: number;
}) {
  const server = await windowServer({ window: options.window ?? 8192, count: options.count, calls: options.calls });
  const cwd = tempFolder('fit-ws');
  for (const [name, text] of Object.entries(options.files)) fs.writeFileSync(path.join(cwd, name), text);
  const store = tempFolder('fit-store');
  try {
    const ran = await runCli(
      [
        '--store',
        store,
        '--provider',
        'llamacpp',
        '--base-url',
        server.baseUrl,
        '--yes',
        '--sandbox',
        'off',
        'read it',
      ],
      { cwd },
    );
    return { ran, server, store, cwd };
  } finally {
    await server.close();
  }
}

function assertReadAndAnswered(result: Awaited<ReturnType<typeof readThrough>>, maxRefusals: number): void {
  const { ran, server } = result;
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout.trim(), 'Read it.');
  assert.doesNotMatch(ran.stderr, /compacted/, 'the result was not summarised away');
  assert.ok(server.refusals.length <= maxRefusals, `${server.refusals.length} refusals: ${server.refusals.join(', ')}`);
}

describe('attack: tool results fitted to a window that counts what the text costs', function () {
  this.timeout(TEST_TIMEOUT_MS);

  const cjk = Array.from({ length: 400 }, (_, index) => CJK_LINE(index + 1)).join('\n');
  const english = Array.from({ length: 400 }, (_, index) => `line ${index + 1}: lorem ipsum dolor sit amet`).join('\n');

  it('CJK and emoji, and no tokenizer to ask: fitted on the first try, the model reads the start', async () => {
    const result = await readThrough({
      files: { 'zh.txt': cjk },
      calls: [{ name: 'read_file', arguments: { path: 'zh.txt' } }],
      count: 'missing',
    });
    assertReadAndAnswered(result, 0);
    const [sent] = result.server.toolMessages();
    assert.match(sent!, /^\s*1\t第1行/);
    assert.match(sent!, /Read the rest with read_file path "zh\.txt", offset \d+/);
  });

  for (const count of ['lying', 'garbage'] as const) {
    it(`CJK and emoji, a tokenizer that is ${count === 'lying' ? 'lying (one token for anything)' : 'answering garbage'}: read after at most one refusal`, async () => {
      const result = await readThrough({
        files: { 'zh.txt': cjk },
        calls: [{ name: 'read_file', arguments: { path: 'zh.txt' } }],
        count,
      });
      assertReadAndAnswered(result, 1);
      const [sent] = result.server.toolMessages();
      // Cut again after the refusal, the note still names the whole read and the line to go on from.
      assert.match(sent!, /of the 1–400 read are shown\. Read the rest with read_file path "zh\.txt", offset \d+/);
    });
  }

  it('English, a lying tokenizer: the refusal cuts the result again rather than summarising it', async () => {
    const result = await readThrough({
      files: { 'big.txt': english },
      calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }],
      count: 'lying',
    });
    assertReadAndAnswered(result, 1);
    assert.match(result.server.toolMessages()[0]!, /^\s*1\tline 1: lorem/);
  });

  for (const reads of [6, 24]) {
    // (Forty is past what an 8k window holds beside a 3k system prompt even as one line each:
    // compaction then summarises the turn, and the model can ask again.)
    it(`${reads} 400-line reads in one turn share the window`, async () => {
      const files: Record<string, string> = {};
      const calls: WindowServerOptions['calls'] = [];
      for (let index = 0; index < reads; index++) {
        files[`f${index}.txt`] = english.replaceAll('lorem', `file${index}`);
        calls.push({ name: 'read_file', arguments: { path: `f${index}.txt` } });
      }
      // Six fit, cut, in a 9k window beside the system prompt and every tool's definition (8k held
      // them until web_fetch's definition joined); twenty-four never do.
      const result = await readThrough({ files, calls, count: 'honest', window: reads === 6 ? 9216 : 8192 });
      assertReadAndAnswered(result, 0);
      const sent = result.server.toolMessages();
      assert.equal(sent.length, reads);
      // Each is shown from its first line with the way to the rest, or (no room beside the others)
      // says it was left out and how to get it: none is summarised away.
      const shown = sent.filter((text, index) => new RegExp(`^\\s*1\\tline 1: file${index} ipsum`).test(text));
      sent.forEach((text, index) =>
        assert.ok(
          shown.includes(text) || text.includes(`Left out to fit the context window: read_file "f${index}.txt"`),
          text.slice(0, 200),
        ),
      );
      if (reads === 6) assert.equal(shown.length, 6, 'six fit, each cut');
      else assert.ok(shown.length >= 1 && shown.length < reads, `${shown.length} shown`);
    });
  }

  it('one 200 KB line from a command: cut with a note, answered', async () => {
    const result = await readThrough({
      files: { 'min.js': `var a=${'1+'.repeat(100_000)}1;` },
      calls: [{ name: 'bash', arguments: { command: 'cat min.js' } }],
      count: 'missing',
    });
    assertReadAndAnswered(result, 0);
    assert.match(result.server.toolMessages()[0]!, /characters cut here to fit the model's context window/);
  });

  it('a window too small for anything: a clear error naming the window and what to do, and the prompt kept', async () => {
    const result = await readThrough({
      files: { 'big.txt': english },
      calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }],
      count: 'honest',
      window: 1_500,
    });
    assert.equal(result.ran.code, 1);
    assert.match(result.ran.stderr, /does not fit the model's context window \(1,500 tokens\)/);
    assert.match(result.ran.stderr, /--ctx-size|-c\b|num_ctx/);
    const history = await runCli(['--store', result.store, '-i'], { cwd: result.cwd, input: '/history\n' });
    assert.match(history.stdout, /read it$/m);
  });
});

describe('attack: cutting results that are not plain text', function () {
  it('an MCP result with images and a huge structured answer stays within its share, emoji whole', () => {
    const output = resultText({
      content: [
        { type: 'image', mimeType: 'image/png', data: 'A'.repeat(400_000) },
        {
          type: 'text',
          text: JSON.stringify({ rows: Array.from({ length: 3_000 }, (_, index) => ({ index, note: '😀é中' })) }),
        },
      ],
    });
    const cut = cutToolResult(
      { type: 'tool_result', toolCallId: 'c', toolName: 'mcp__db__query', output, isError: false },
      {},
      3_000,
    ).output;
    assert.ok(cut.length <= 3_000, `${cut.length} characters`);
    assert.match(cut, /^\[image image\/png, 300000 bytes — not shown\]/);
    assert.match(cut, /cut here to fit the model's context window/);
    assert.doesNotMatch(cut, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
