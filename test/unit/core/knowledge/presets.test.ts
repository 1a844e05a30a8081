import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PresetLibrary } from '../../../../src/core/knowledge/presets';
import { NodeKnowledgeFiles } from '../../../../src/node/node-knowledge-files';

function preset(folder: string, name: string, text: string): void {
  fs.mkdirSync(path.join(folder, name), { recursive: true });
  fs.writeFileSync(path.join(folder, name, 'PROMPT.md'), text);
}

describe('presets', () => {
  let bundled: string;
  let workspace: string;
  beforeEach(() => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-presets-'));
    bundled = path.join(root, 'prompts');
    workspace = path.join(root, 'workspace');
    preset(bundled, 'coding', 'bundled coding');
    preset(bundled, 'review', 'bundled review');
    preset(path.join(workspace, '.openagent', 'prompts'), 'review', 'our review');
    preset(path.join(workspace, '.openagent', 'prompts'), 'docs', 'our docs');
    // A folder without PROMPT.md is not a preset.
    fs.mkdirSync(path.join(bundled, 'empty'));
  });

  it("lists bundled and the workspace's presets; the workspace's win on a name", async () => {
    const library = new PresetLibrary(new NodeKnowledgeFiles(), bundled, () => workspace);
    assert.deepEqual(await library.list(), ['coding', 'docs', 'review']);
    assert.equal(await library.read('review'), 'our review');
    assert.equal(await library.read('docs'), 'our docs');
    assert.ok(await library.has('docs'));
  });

  it("ignores the workspace's presets when the host says it does not count (untrusted)", async () => {
    const library = new PresetLibrary(new NodeKnowledgeFiles(), bundled, () => undefined);
    assert.deepEqual(await library.list(), ['coding', 'review']);
    assert.equal(await library.read('review'), 'bundled review');
    assert.equal(await library.has('docs'), false);
  });

  it('falls back to "coding" for a preset that is gone, and says when even that is missing', async () => {
    const library = new PresetLibrary(new NodeKnowledgeFiles(), bundled, () => workspace);
    assert.equal(await library.read('deleted-since'), 'bundled coding');
    fs.rmSync(path.join(bundled, 'coding'), { recursive: true });
    await assert.rejects(library.read('deleted-since'), /The bundled "coding" preset is missing/);
  });
});
