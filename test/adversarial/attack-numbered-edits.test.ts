/**
 * Issue 32, item 11, second pass: numbered edits (oldText quoting read_file's line-number
 * prefixes) after changes the first tests did not try — replacements in one call whose line
 * counts cancel out, a sub-agent reading the changed file, a change and its undoing, two files,
 * partial reads, a file read through a link — through the product's file tools on real files.
 * The edit lands on the lines the model meant, or is refused with the way out; never on other
 * lines that read the same.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../src/core/tools/tool';

/** Blocks whose last two lines read the same in each: a shift of 3 lines finds look-alikes. */
const ORIGINAL = [
  '// top',
  'function one() {',
  '  return 0;',
  '}',
  'function two() {',
  '  return 0;',
  '}',
  'function three() {',
  '  return 0;',
  '}',
  '// end',
  '',
].join('\n');
/** Block two's body by read_file's numbers (lines 6–7). */
const NUMBERED = { oldText: '6\t  return 0;\n7\t}', newText: '6\t  return 2;\n7\t}' };
const MEANT = ORIGINAL.replace('two() {\n  return 0;', 'two() {\n  return 2;');
const REFUSED = /changed since the read_file[\s\S]*Call read_file again/;

describe('attack: numbered edits after changes of new kinds (issue 32, item 11)', () => {
  let root: string;
  let file: string;
  let tools: Map<string, AnyTool>;
  let call = 0;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-attack-numbered-')));
    file = path.join(root, 'code.ts');
    fs.writeFileSync(file, ORIGINAL);
    tools = new Map(createFileTools(new NodeWorkspace(root)).map((tool) => [tool.name, tool]));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  async function run(name: string, input: unknown, agentId = 'lead') {
    const tool = tools.get(name)!;
    const result = await tool.execute(tool.inputSchema.parse(input), {
      conversationId: 'conv-1',
      agentId,
      toolCallId: `call_${++call}`,
      signal: new AbortController().signal,
    });
    return typeof result === 'string'
      ? { output: result, isError: false }
      : { output: result.output, isError: !!result.isError };
  }
  const read = (input: Record<string, unknown> = {}, agentId?: string) =>
    run('read_file', { path: 'code.ts', ...input }, agentId);
  const edit = (edits: unknown[], name = 'code.ts') => run('edit_file', { path: name, edits });

  async function assertRefused(edits: unknown[], expected: string, name = 'code.ts') {
    const result = await edit(edits, name);
    assert.equal(result.isError, true, result.output);
    assert.match(result.output, REFUSED);
    assert.equal(fs.readFileSync(path.join(root, name), 'utf8'), expected);
  }
  async function assertLands(edits: unknown[], expected: string, name = 'code.ts') {
    const result = await edit(edits, name);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(path.join(root, name), 'utf8'), expected);
  }

  it('refuses numbers between two replacements of one call whose line counts cancel out', async () => {
    await read();
    // Three lines out above block two, three lines in below it: the count is even, block two moved.
    const moved = await edit([
      { oldText: 'function one() {\n  return 0;\n}\n', newText: '' },
      { oldText: '// end\n', newText: '// end\n// a\n// b\n// c\n' },
    ]);
    assert.equal(moved.isError, false, moved.output);
    const now = fs.readFileSync(file, 'utf8');
    await assertRefused([NUMBERED], now);
  });

  it('refuses numbers after two calls whose line counts cancel out', async () => {
    await read();
    assert.equal((await edit([{ oldText: '// top\n', newText: '' }])).isError, false);
    assert.equal((await edit([{ oldText: '// end\n', newText: '// end\n// more\n' }])).isError, false);
    await assertRefused([NUMBERED], fs.readFileSync(file, 'utf8'));
  });

  it("a sub-agent's read of the changed file does not vouch for the lead's old numbers", async () => {
    await read();
    const formatted = ORIGINAL.replace('// top\n', '// top\n// a\n// b\n// c\n');
    fs.writeFileSync(file, formatted);
    // The sub-agent shares the conversation, not the lead's context.
    assert.equal((await read({}, 'sub-1')).isError, false);
    await assertRefused([NUMBERED], formatted);
  });

  it("a sub-agent's own numbered edit of what it read lands", async () => {
    await read({}, 'sub-1');
    const result = await run('edit_file', { path: 'code.ts', edits: [NUMBERED] }, 'sub-1');
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(file, 'utf8'), MEANT);
  });

  it('places numbers after a change and its undoing (the content is the read one again)', async () => {
    await read();
    fs.writeFileSync(file, `// header\n${ORIGINAL}`);
    fs.writeFileSync(file, ORIGINAL);
    await assertLands([NUMBERED], MEANT);
  });

  it('places numbers after its own edit adding lines and a later one taking them out', async () => {
    await read();
    assert.equal((await edit([{ oldText: '// top\n', newText: '// top\n// x\n' }])).isError, false);
    assert.equal((await edit([{ oldText: '// x\n', newText: '' }])).isError, false);
    await assertLands([NUMBERED], MEANT);
  });

  it('refuses numbers after a change below the quoted lines, even of the same line count', async () => {
    await read();
    const changed = ORIGINAL.replace('// end', '// END');
    fs.writeFileSync(file, changed);
    await assertRefused([NUMBERED], changed);
  });

  it('two files: numbers read in one are not taken for the other, even with the same content', async () => {
    fs.writeFileSync(path.join(root, 'twin.ts'), ORIGINAL);
    await read();
    await assertRefused([NUMBERED], ORIGINAL, 'twin.ts');
    await run('read_file', { path: 'twin.ts' });
    const formatted = `// header\n// more\n// more\n${ORIGINAL}`;
    fs.writeFileSync(path.join(root, 'twin.ts'), formatted);
    await assertRefused([NUMBERED], formatted, 'twin.ts');
    await assertLands([NUMBERED], MEANT);
  });

  it('a partial read (offset and limit): its numbers place while the file is unchanged, not after', async () => {
    await read({ offset: 5, limit: 3 });
    await assertLands([NUMBERED], MEANT);
    await read({ offset: 9, limit: 2 });
    const formatted = `// header\n// more\n// more\n${MEANT}`;
    fs.writeFileSync(file, formatted);
    await assertRefused([{ oldText: '9\t  return 0;\n10\t}', newText: '9\t  return 3;\n10\t}' }], formatted);
  });

  it('a file read through a link: a change through the real name is seen, under either name', async () => {
    fs.symlinkSync('code.ts', path.join(root, 'link.ts'));
    await run('read_file', { path: 'link.ts' });
    const formatted = `// header\n// more\n// more\n${ORIGINAL}`;
    fs.writeFileSync(file, formatted);
    await assertRefused([NUMBERED], formatted, 'link.ts');
    await assertRefused([NUMBERED], formatted, 'code.ts');
  });

  it('a file read through a link and then swapped for another file with look-alike lines: refused', async () => {
    const other = `// other\n// other\n// other\n${ORIGINAL}`;
    fs.writeFileSync(path.join(root, 'other.ts'), other);
    fs.symlinkSync('code.ts', path.join(root, 'link.ts'));
    await run('read_file', { path: 'link.ts' });
    fs.unlinkSync(path.join(root, 'link.ts'));
    fs.symlinkSync('other.ts', path.join(root, 'link.ts'));
    await assertRefused([NUMBERED], other, 'link.ts');
  });
});
