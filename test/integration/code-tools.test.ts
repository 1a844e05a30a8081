/**
 * search_files and the code-navigation tools in the real editor: ripgrep as VS Code ships it,
 * and the built-in TypeScript extension answering definitions, references, symbols and problems
 * for the TypeScript files of the sample workspace (ts/).
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { createNavigationTools, createSearchTool } from '../../src/core/tools/builtin/code-tools';
import { VscodeCodeNavigation } from '../../src/host/workspace/vscode-code-navigation';
import { VscodeWorkspace } from '../../src/host/workspace/vscode-workspace';
import { findRipgrep, RipgrepSearch, vscodeRipgrepCandidates } from '../../src/node/ripgrep-search';
import { runTool } from '../unit/core/tools/run-tool';
import { waitFor } from './helpers';

describe('code tools through VS Code', function () {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const workspace = new VscodeWorkspace(root);
  const [getDiagnostics, findSymbol, findReferences, goToDefinition] = createNavigationTools(
    new VscodeCodeNavigation(),
    workspace,
  );

  /**
   * Language servers answer "nothing" while still loading (the TypeScript server starts on first
   * use, slowly on a loaded machine): ask until the answer has `expected`.
   */
  async function settled(tool: typeof findSymbol, input: unknown, expected: RegExp): Promise<string> {
    let last = '';
    try {
      await waitFor(async () => expected.test((last = (await runTool(tool, input)).output)), `${tool?.name}`);
    } catch (error) {
      const all = vscode.languages
        .getDiagnostics()
        .map(([uri, items]) => `${uri.toString()}: ${items.map((item) => item.message).join(' | ')}`);
      const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs.map((tab) => tab.label));
      throw new Error(
        `${(error as Error).message}: never answered ${expected}; last answer: ${last}\nall diagnostics: ${all.join('\n')}\ntabs: ${tabs.join(', ')}`,
        { cause: error },
      );
    }
    return last;
  }

  it('searches with the ripgrep VS Code ships', async () => {
    const rg = findRipgrep(vscodeRipgrepCandidates(vscode.env.appRoot));
    assert.notEqual(rg, 'rg', `VS Code's ripgrep was not found under ${vscode.env.appRoot}`);
    const search = createSearchTool(new RipgrepSearch(rg), workspace);
    const result = await runTool(search, { pattern: 'circleArea\\(', glob: '*.ts' });
    assert.equal(result.isError, false);
    assert.deepEqual(result.output.split('\n').sort(), [
      'ts/broken.ts:3:38: export const label: number = `area ${circleArea(3)}`;',
      'ts/main.ts:3:15: const total = circleArea(1) + circleArea(2) + new Rectangle(2, 3).area();',
      'ts/shapes.ts:2:17: export function circleArea(r: number): number {',
    ]);
  });

  it('goes to a definition in another file', async () => {
    const output = await settled(
      goToDefinition,
      { path: 'ts/main.ts', line: 3, symbol: 'circleArea' },
      /ts\/shapes\.ts/,
    );
    assert.equal(
      output,
      '1 definitions of circleArea:\nts/shapes.ts:2:17: export function circleArea(r: number): number {',
    );
  });

  it('finds every reference, across files', async () => {
    const output = await settled(findReferences, { path: 'ts/shapes.ts', line: 2, symbol: 'circleArea' }, /broken\.ts/);
    const places = output
      .split('\n')
      .slice(1)
      .map((line) => line.split(': ')[0])
      .sort();
    assert.deepEqual(places, [
      'ts/broken.ts:1:10',
      'ts/broken.ts:3:38',
      'ts/main.ts:1:10',
      'ts/main.ts:3:15',
      'ts/main.ts:3:31',
      'ts/shapes.ts:2:17',
    ]);
  });

  it('finds a class and a method by name', async () => {
    assert.match(await settled(findSymbol, { name: 'Rectangle' }, /class Rectangle — ts\/shapes.ts:6:/), /class/);
    assert.match(await settled(findSymbol, { name: 'circleArea' }, /function circleArea\(\) — ts\/shapes.ts:2:/), /2:/);
  });

  it('reports the type error of a file, and none for a clean one', async () => {
    const output = await settled(getDiagnostics, { path: 'ts/broken.ts' }, /error/);
    assert.match(output, /^ts\/broken.ts:3:14 error \(ts 2322\): Type 'string' is not assignable to type 'number'\./);
    assert.equal(
      (await runTool(getDiagnostics, { path: 'ts/shapes.ts' })).output,
      'No problems reported in ts/shapes.ts.',
    );
  });
});
