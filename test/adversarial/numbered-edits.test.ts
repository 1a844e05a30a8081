/**
 * Issue 32, item 11: an edit_file whose oldText quotes read_file's line-number prefixes is
 * placed by those numbers only while the file is still the version whose numbers the model saw.
 * The file changes between the read and the edit in every way we could think of (a formatter
 * adds or removes lines, reformats a line, turns line ends into CRLF; the agent's own writes and
 * edits; edits earlier in the same call): each edit is refused with the way out, or lands on the
 * lines the model meant — never on other lines that happen to read the same. Through the
 * product's file tools, on real files.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../src/core/tools/tool';

/** Blocks of three lines whose last two lines read the same in every block. */
const BLOCKS = [
  'function one() {',
  '  return 0;',
  '}',
  'function two() {',
  '  return 0;',
  '}',
  'function three() {',
  '  return 0;',
  '}',
];
const ORIGINAL = `${BLOCKS.join('\n')}\n`;
/** What the model means: block two's body, by read_file's numbers (lines 5–6). */
const NUMBERED_EDIT = { oldText: ' 5\t  return 0;\n 6\t}', newText: ' 5\t  return 2;\n 6\t}' };
const MEANT = ORIGINAL.replace('two() {\n  return 0;', 'two() {\n  return 2;');

describe('adversarial: numbered edits after the file changed (issue 32, item 11)', () => {
  let root: string;
  let file: string;
  let tools: Map<string, AnyTool>;
  let call = 0;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-numbered-')));
    file = path.join(root, 'code.ts');
    fs.writeFileSync(file, ORIGINAL);
    tools = new Map(createFileTools(new NodeWorkspace(root)).map((tool) => [tool.name, tool]));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  async function run(name: string, input: unknown, conversationId = 'conv-1') {
    const tool = tools.get(name)!;
    const result = await tool.execute(tool.inputSchema.parse(input), {
      conversationId,
      agentId: 'lead',
      toolCallId: `call_${++call}`,
      signal: new AbortController().signal,
    });
    return typeof result === 'string'
      ? { output: result, isError: false }
      : { output: result.output, isError: !!result.isError };
  }
  const read = (conversationId?: string) => run('read_file', { path: 'code.ts' }, conversationId);
  const edit = (edits: unknown[], conversationId?: string) =>
    run('edit_file', { path: 'code.ts', edits }, conversationId);

  /** The edit was refused, said why and what to do, and the file is as the change left it. */
  async function assertRefused(edits: unknown[], expected: string) {
    const result = await edit(edits);
    assert.equal(result.isError, true, result.output);
    assert.match(result.output, /changed since the read_file[\s\S]*Call read_file again/);
    assert.equal(fs.readFileSync(file, 'utf8'), expected);
  }

  it('lands on the lines meant when nothing changed since the read (the control)', async () => {
    await read();
    const result = await edit([NUMBERED_EDIT]);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(file, 'utf8'), MEANT);
  });

  const outsideChanges: Array<[string, (text: string) => string]> = [
    ['a formatter adds three lines above', (text) => `// header\n// generated\n\n${text}`],
    ['a formatter adds one line above', (text) => `'use strict';\n${text}`],
    ['a formatter removes three lines above', (text) => text.split('\n').slice(3).join('\n')],
    ['a line above is reformatted, same line count', (text) => text.replace('function one() {', 'function one () {')],
    ['the quoted lines themselves change', (text) => text.replace('two() {\n  return 0;', 'two() {\n  return 1;')],
    ['lines added and removed, the count unchanged', (text) => `// added\n${text.split('\n').slice(1).join('\n')}`],
    ['CRLF line ends and a line added above', (text) => `// header\n${text}`.replace(/\n/g, '\r\n')],
    ['the file replaced by blocks in another order', (text) => text.split('\n').reverse().join('\n')],
  ];
  for (const [change, apply] of outsideChanges)
    it(`refuses a numbered edit after ${change}`, async () => {
      await read();
      const changed = apply(ORIGINAL);
      fs.writeFileSync(file, changed);
      await assertRefused([NUMBERED_EDIT], changed);
    });

  it('refuses a numbered edit of a file never read in the conversation', async () => {
    await read('another-conversation');
    await assertRefused([NUMBERED_EDIT], ORIGINAL);
  });

  it('places a numbered edit after the file only turned into CRLF (no line moved)', async () => {
    await read();
    fs.writeFileSync(file, ORIGINAL.replace(/\n/g, '\r\n'));
    const result = await edit([NUMBERED_EDIT]);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(file, 'utf8'), MEANT.replace(/\n/g, '\r\n'));
  });

  it('places a numbered edit after a read of the changed file', async () => {
    await read();
    const changed = `// header\n// generated\n\n${ORIGINAL}`;
    fs.writeFileSync(file, changed);
    await read();
    const result = await edit([{ oldText: ' 8\t  return 0;\n 9\t}', newText: ' 8\t  return 2;\n 9\t}' }]);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(file, 'utf8'), `// header\n// generated\n\n${MEANT}`);
  });

  it("places a numbered edit after the agent's own write_file", async () => {
    await read();
    const written = `// mine\n${ORIGINAL}`;
    assert.equal((await run('write_file', { path: 'code.ts', content: written })).isError, false);
    const result = await edit([{ oldText: '6\t  return 0;\n7\t}', newText: '6\t  return 2;\n7\t}' }]);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(file, 'utf8'), `// mine\n${MEANT}`);
  });

  it("after the agent's own edit added lines: numbers above it still place, numbers below are refused", async () => {
    await read();
    const grown = ORIGINAL.replace('function two() {', '// two\nfunction two() {');
    assert.equal((await edit([{ oldText: 'function two() {', newText: '// two\nfunction two() {' }])).isError, false);
    assert.equal(fs.readFileSync(file, 'utf8'), grown);
    await assertRefused([NUMBERED_EDIT], grown);
    const above = await edit([{ oldText: '2\t  return 0;\n3\t}', newText: '2\t  return 1;\n3\t}' }]);
    assert.equal(above.isError, false, above.output);
    assert.equal(fs.readFileSync(file, 'utf8'), grown.replace('one() {\n  return 0;', 'one() {\n  return 1;'));
  });

  it("after the agent's own edit that kept the line count, numbers still place", async () => {
    await read();
    assert.equal((await edit([{ oldText: 'function one() {', newText: 'function first() {' }])).isError, false);
    const result = await edit([NUMBERED_EDIT]);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(file, 'utf8'), MEANT.replace('function one() {', 'function first() {'));
  });

  it('refuses a numbered edit that follows, in the same call, an edit adding lines above it', async () => {
    await read();
    await assertRefused(
      [{ oldText: 'function one() {', newText: '// one\n// more\n// more\nfunction one() {' }, NUMBERED_EDIT],
      ORIGINAL,
    );
  });

  it('a formatter run between two numbered edits: the first lands, the second is refused', async () => {
    await read();
    assert.equal((await edit([NUMBERED_EDIT])).isError, false);
    const formatted = `// header\n// generated\n\n${MEANT}`;
    fs.writeFileSync(file, formatted);
    await assertRefused([{ oldText: ' 8\t  return 0;\n 9\t}', newText: ' 8\t  return 3;\n 9\t}' }], formatted);
  });
});
