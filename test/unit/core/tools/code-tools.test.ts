import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CodeLocation, CodeNavigation } from '../../../../src/core/ports';
import { createNavigationTools, createSearchTool, findWord } from '../../../../src/core/tools/builtin/code-tools';
import { findRipgrep, RipgrepSearch } from '../../../../src/node/ripgrep-search';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { runTool } from './run-tool';

function project(): { root: string; workspace: NodeWorkspace } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-code-'));
  const root = path.join(base, 'workspace');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
  fs.mkdirSync(path.join(root, 'build'));
  fs.writeFileSync(path.join(root, 'build', 'out.js'), 'const area = 1;\n');
  fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'const area = 2;\n');
  fs.writeFileSync(
    path.join(root, 'src', 'shapes.ts'),
    'export function area(r: number) {\n  return Math.PI * r * r;\n}\n',
  );
  fs.writeFileSync(
    path.join(root, 'src', 'main.ts'),
    "import { area } from './shapes';\nconsole.log(área, area(2));\n",
  );
  fs.writeFileSync(path.join(base, 'outside', 'secret.ts'), 'const area = 3;\n');
  fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'linked'));
  return { root, workspace: new NodeWorkspace(root) };
}

describe('search_files (ripgrep)', () => {
  const rg = findRipgrep(['/usr/bin/rg']);

  it('finds matches with path:line:column, leaving out ignored folders', async () => {
    const { workspace } = project();
    const search = createSearchTool(new RipgrepSearch(rg), workspace);
    const result = await runTool(search, { pattern: 'area\\(' });
    assert.equal(result.isError, false);
    const lines = result.output.split('\n').sort();
    // Columns count characters, not bytes: "á" before the match is one character (two bytes).
    assert.deepEqual(lines, [
      'src/main.ts:2:19: console.log(área, area(2));',
      'src/shapes.ts:1:17: export function area(r: number) {',
    ]);
  });

  it('takes literal text, a glob, a folder and case sensitivity', async () => {
    const { workspace } = project();
    const search = createSearchTool(new RipgrepSearch(rg), workspace);
    assert.match((await runTool(search, { pattern: 'Math.PI *', literal: true })).output, /^src\/shapes.ts:2:10:/);
    assert.match((await runTool(search, { pattern: 'AREA', glob: '*.ts' })).output, /src\/main.ts:1:/);
    assert.match((await runTool(search, { pattern: 'AREA', caseSensitive: true })).output, /^No matches/);
    const inFolder = await runTool(search, { pattern: 'import', path: 'src' });
    assert.match(inFolder.output, /^src\/main.ts:1:1: import/);
  });

  it('stops at maxResults and says there is more', async () => {
    const { root, workspace } = project();
    fs.writeFileSync(path.join(root, 'many.txt'), 'hit\n'.repeat(5_000));
    const result = await runTool(createSearchTool(new RipgrepSearch(rg), workspace), { pattern: 'hit', maxResults: 3 });
    assert.equal(result.output.split('\n').length, 4);
    assert.match(result.output, /more matches not shown/);
  });

  it('refuses a path outside, and reports a bad pattern in ripgrep words', async () => {
    const { workspace } = project();
    const search = createSearchTool(new RipgrepSearch(rg), workspace);
    for (const outside of ['../outside', 'linked', '/etc']) {
      const result = await runTool(search, { pattern: 'area', path: outside });
      assert.equal(result.isError, true, outside);
      assert.match(result.output, /outside the workspace/);
    }
    const bad = await runTool(search, { pattern: 'area(' });
    assert.equal(bad.isError, true);
    assert.match(bad.output, /^ripgrep: regex parse error.*unclosed group/s);
  });

  it('leaves out files.exclude globs it is given', async () => {
    const { workspace } = project();
    const search = createSearchTool(new RipgrepSearch(rg, () => ['**/main.ts']), workspace);
    const result = await runTool(search, { pattern: 'area\\(' });
    assert.doesNotMatch(result.output, /main.ts/);
    assert.match(result.output, /shapes.ts/);
  });
});

/** Language features as a recording fake: what the tools ask for, and canned answers. */
class RecordingNavigation implements CodeNavigation {
  readonly asked: CodeLocation[] = [];
  constructor(private readonly root: string) {}
  async diagnostics(absolute?: string) {
    const file = absolute ?? path.join(this.root, 'src', 'main.ts');
    return [
      { path: file, line: 2, column: 13, severity: 'warning' as const, message: 'unused' },
      {
        path: file,
        line: 2,
        column: 13,
        severity: 'error' as const,
        message: "Cannot find name 'área'.",
        source: 'ts 2304',
      },
      { path: '/elsewhere/lib.d.ts', line: 1, column: 1, severity: 'error' as const, message: 'outside' },
    ];
  }
  async findSymbols(query: string) {
    return [
      { name: `${query}Helper`, kind: 'variable', path: path.join(this.root, 'src', 'main.ts'), line: 1, column: 1 },
      { name: query, kind: 'function', path: path.join(this.root, 'src', 'shapes.ts'), line: 1, column: 17 },
    ];
  }
  async references(at: CodeLocation) {
    this.asked.push(at);
    return [at, { path: path.join(this.root, 'src', 'main.ts'), line: 2, column: 19 }];
  }
  async definitions(at: CodeLocation) {
    this.asked.push(at);
    return [{ path: path.join(this.root, 'src', 'shapes.ts'), line: 1, column: 17 }];
  }
}

describe('code navigation tools', () => {
  it('turn a line and a symbol name into an exact position, and show the code found', async () => {
    const { root, workspace } = project();
    const navigation = new RecordingNavigation(root);
    const [, , findReferences, goToDefinition] = createNavigationTools(navigation, workspace);
    const definition = await runTool(goToDefinition, { path: 'src/main.ts', line: 2, symbol: 'area' });
    assert.deepEqual(navigation.asked[0], { path: path.join(root, 'src', 'main.ts'), line: 2, column: 19 });
    assert.equal(definition.output, '1 definitions of area:\nsrc/shapes.ts:1:17: export function area(r: number) {');
    const references = await runTool(findReferences, { path: 'src/shapes.ts', line: 1, symbol: 'area' });
    assert.match(references.output, /^2 references to area:\nsrc\/shapes.ts:1:17: export function area/);
  });

  it('say why when the symbol is not on that line or the file is outside', async () => {
    const { root, workspace } = project();
    const [, , findReferences] = createNavigationTools(new RecordingNavigation(root), workspace);
    const missing = await runTool(findReferences, { path: 'src/main.ts', line: 1, symbol: 'volume' });
    assert.equal(missing.isError, true);
    assert.match(missing.output, /`volume` is not on line 1 of src\/main.ts/);
    const pastEnd = await runTool(findReferences, { path: 'src/main.ts', line: 99, symbol: 'area' });
    assert.match(pastEnd.output, /has no line 99/);
    const outside = await runTool(findReferences, { path: 'linked/secret.ts', line: 1, symbol: 'area' });
    assert.match(outside.output, /outside the workspace/);
  });

  it('list problems errors first, leaving out files outside the workspace', async () => {
    const { root, workspace } = project();
    const [getDiagnostics, findSymbol] = createNavigationTools(new RecordingNavigation(root), workspace);
    const problems = await runTool(getDiagnostics, {});
    assert.equal(
      problems.output,
      "src/main.ts:2:13 error (ts 2304): Cannot find name 'área'.\nsrc/main.ts:2:13 warning: unused",
    );
    const symbols = await runTool(findSymbol, { name: 'area' });
    assert.equal(symbols.output, 'function area — src/shapes.ts:1:17\nvariable areaHelper — src/main.ts:1:1');
  });

  it('find whole words before parts of words', () => {
    assert.equal(findWord('const areas = area(1);', 'area'), 15);
    assert.equal(findWord('const areas = 1;', 'area'), 7);
    assert.equal(findWord('x.$el = 1', '$el'), 3);
    assert.equal(findWord('nothing here', 'area'), undefined);
  });
});
