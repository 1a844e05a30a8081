import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { compileGlob } from '../../../../src/core/workspace/glob';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { runTool } from '../tools/run-tool';
import { globToRegExp } from './glob-oracle';

describe('glob', () => {
  it('matches like VS Code: ** across folders, * and ? within a name, {a,b}, [classes]', () => {
    const cases: Array<[string, string, boolean]> = [
      ['**/*.ts', 'a.ts', true],
      ['**/*.ts', 'src/deep/a.ts', true],
      ['**/*.ts', 'src/a.tsx', false],
      ['*.ts', 'src/a.ts', false],
      ['src/**', 'src/a/b/c.js', true],
      ['src/*.{js,ts}', 'src/a.ts', true],
      ['src/*.{js,ts}', 'src/a.css', false],
      ['file?.txt', 'file1.txt', true],
      ['file?.txt', 'file10.txt', false],
      ['[ab].md', 'b.md', true],
      ['[!ab].md', 'a.md', false],
      ['a+b(c).txt', 'a+b(c).txt', true],
    ];
    for (const [glob, candidate, expected] of cases)
      assert.equal(compileGlob(glob).test(candidate), expected, `${glob} vs ${candidate}`);
    assert.throws(() => compileGlob('{a,b'), /Unbalanced/);
  });

  it('answers as the regular expression it replaced, one matcher reused over many paths (its remembered walk)', () => {
    let seed = 7;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return list[seed % list.length]!;
    };
    const globParts = ['a', 'b', '/', '*', '**', '**/', '?', '{a,b}', '{a,b/c}', '[ab]', '[!a]', '.', 'é'];
    const pathParts = ['a', 'b', '/', 'c', '.', 'é', 'ab'];
    let compared = 0;
    for (let round = 0; round < 1_500; round++) {
      const glob = Array.from({ length: 1 + (round % 6) }, () => pick(globParts)).join('');
      let oracle: RegExp;
      try {
        oracle = globToRegExp(glob);
      } catch {
        assert.throws(() => compileGlob(glob));
        continue;
      }
      const matcher = compileGlob(glob);
      for (let k = 0; k < 40; k++) {
        const candidate = Array.from({ length: k % 9 }, () => pick(pathParts)).join('');
        assert.equal(matcher.test(candidate), oracle.test(candidate), `${glob} vs ${candidate}`);
        compared++;
      }
    }
    assert.ok(compared > 50_000, String(compared));
  });

  it('finds files with the glob tool, leaving out node_modules and ignored files', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-glob-'));
    for (const file of [
      'src/a.test.ts',
      'src/deep/b.test.ts',
      'src/c.ts',
      'node_modules/x/d.test.ts',
      'dist/e.test.ts',
    ]) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), '');
    }
    fs.writeFileSync(path.join(root, '.gitignore'), 'dist\n');
    const glob = createFileTools(new NodeWorkspace(root)).find((tool) => tool.name === 'glob');
    assert.equal((await runTool(glob, { pattern: '**/*.test.ts' })).output, 'src/a.test.ts\nsrc/deep/b.test.ts');
    assert.equal((await runTool(glob, { pattern: '*.ts', path: 'src' })).output, 'src/a.test.ts\nsrc/c.ts');
    assert.match((await runTool(glob, { pattern: '*.py' })).output, /^No files match/);
    assert.match((await runTool(glob, { pattern: '*', path: '../' })).output, /outside the workspace/);
  });
});
