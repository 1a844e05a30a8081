/**
 * Class 1 of the adversarial suite: file tools must not write outside the workspace, however
 * links are planted or swapped — before the call, or between the path check and the write.
 * Each case asserts the exact outcome and that nothing outside the workspace changed.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../src/core/tools/tool';
import { runToolSafely } from '../unit/core/tools/run-tool';
import { resolveWorkspacePath } from '../../src/core/workspace/workspace-path';
import { NodeWorkspace } from '../../src/node/node-workspace';

interface Sandbox {
  root: string;
  outside: string;
  workspace: NodeWorkspace;
  tool(name: string): AnyTool;
}

function sandbox(): Sandbox {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-adversarial-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'original\n');
  const workspace = new NodeWorkspace(root);
  const tools = createFileTools(workspace);
  return {
    root,
    outside,
    workspace,
    tool: (name) => tools.find((tool) => tool.name === name)!,
  };
}

/** Everything under `folder`, with contents and link targets: to show nothing changed. */
function snapshot(folder: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of fs.readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(folder, name);
    const stat = fs.lstatSync(full);
    result[name] = stat.isSymbolicLink()
      ? `link -> ${fs.readlinkSync(full)}`
      : stat.isDirectory()
        ? 'dir'
        : fs.readFileSync(full, 'utf8');
  }
  return result;
}

const run = runToolSafely;

describe('adversarial: file tools and links', () => {
  const planted: Array<{
    name: string;
    plant: (box: Sandbox) => void;
    input: (box: Sandbox) => Record<string, unknown>;
  }> = [
    {
      name: 'a link to a file outside, written as a file',
      plant: (box) => fs.symlinkSync(path.join(box.outside, 'victim.txt'), path.join(box.root, 'notes.txt')),
      input: () => ({ path: 'notes.txt', content: 'pwned\n' }),
    },
    {
      name: 'a link to a folder outside, written into',
      plant: (box) => fs.symlinkSync(box.outside, path.join(box.root, 'docs')),
      input: () => ({ path: 'docs/victim.txt', content: 'pwned\n' }),
    },
    {
      name: 'a new file under a linked folder outside',
      plant: (box) => fs.symlinkSync(box.outside, path.join(box.root, 'docs')),
      input: () => ({ path: 'docs/new/deep.txt', content: 'pwned\n' }),
    },
    {
      name: 'a chain of links ending outside',
      plant: (box) => {
        fs.symlinkSync(box.outside, path.join(box.root, 'b'));
        fs.symlinkSync(path.join(box.root, 'b'), path.join(box.root, 'a'));
      },
      input: () => ({ path: 'a/victim.txt', content: 'pwned\n' }),
    },
    {
      name: 'a relative link climbing out',
      plant: (box) => fs.symlinkSync('../outside/victim.txt', path.join(box.root, 'rel.txt')),
      input: () => ({ path: 'rel.txt', content: 'pwned\n' }),
    },
    {
      name: 'a dangling link whose target would be created outside',
      plant: (box) => fs.symlinkSync(path.join(box.outside, 'created.txt'), path.join(box.root, 'dangling.txt')),
      input: () => ({ path: 'dangling.txt', content: 'pwned\n' }),
    },
    {
      name: 'a dangling relative link into a new folder outside',
      plant: (box) => fs.symlinkSync('../outside/new/created.txt', path.join(box.root, 'rel-dangling.txt')),
      input: () => ({ path: 'rel-dangling.txt', content: 'pwned\n' }),
    },
    {
      name: 'a dangling link under a dangling link',
      plant: (box) => {
        fs.symlinkSync(path.join(box.outside, 'later'), path.join(box.root, 'later'));
      },
      input: () => ({ path: 'later/file.txt', content: 'pwned\n' }),
    },
    {
      name: 'an absolute path outside',
      plant: () => {},
      input: (box) => ({ path: path.join(box.outside, 'victim.txt'), content: 'pwned\n' }),
    },
    {
      name: 'a path climbing out with ..',
      plant: () => {},
      input: () => ({ path: '../outside/victim.txt', content: 'pwned\n' }),
    },
  ];

  for (const attack of planted) {
    it(`write_file refuses ${attack.name}, and nothing outside changes`, async () => {
      const box = sandbox();
      attack.plant(box);
      const before = snapshot(box.outside);
      const result = await run(box.tool('write_file'), attack.input(box));
      assert.equal(result.isError, true, result.output);
      assert.match(result.output, /outside the workspace/);
      assert.deepEqual(snapshot(box.outside), before);
    });
  }

  // Paths the way a shell would expand them are taken literally, or refused: never expanded.
  const WORDS: Array<[string, RegExp]> = [
    ['~/.bashrc', /Home-folder paths/],
    ['$HOME/.bashrc', /./],
    ['../*/victim.txt', /outside the workspace/],
    ['../outsid?/victim.txt', /outside the workspace/],
    ['%2e%2e/outside/victim.txt', /percent-encoded/],
    ['..\\outside\\victim.txt', /forward slashes/],
    ['notes.txt\0../../outside/victim.txt', /NUL byte/],
    ['file:///etc/passwd', /not a URL/],
    ['docs/../../outside/victim.txt', /outside the workspace/],
  ];
  for (const [word, reason] of WORDS) {
    it(`write_file takes ${JSON.stringify(word)} literally or refuses it; nothing outside changes`, async () => {
      const box = sandbox();
      const before = snapshot(box.outside);
      const result = await run(box.tool('write_file'), { path: word, content: 'pwned\n' });
      if (result.isError) assert.match(result.output, reason);
      else {
        // Written, then only as a file of that literal name inside the workspace.
        const inside = snapshot(box.root);
        assert.ok(
          Object.keys(inside).some((name) => name.includes('$HOME')),
          JSON.stringify(inside),
        );
      }
      assert.deepEqual(snapshot(box.outside), before);
    });
  }

  it('write_file refuses a loop of links with a clear error', async () => {
    const box = sandbox();
    fs.symlinkSync(path.join(box.root, 'b'), path.join(box.root, 'a'));
    fs.symlinkSync(path.join(box.root, 'a'), path.join(box.root, 'b'));
    const result = await run(box.tool('write_file'), { path: 'a', content: 'x' });
    assert.equal(result.isError, true);
    assert.match(result.output, /too many symbolic links/);
  });

  it('edit_file refuses a linked file outside, and nothing outside changes', async () => {
    const box = sandbox();
    fs.symlinkSync(path.join(box.outside, 'victim.txt'), path.join(box.root, 'notes.txt'));
    const result = await run(box.tool('edit_file'), {
      path: 'notes.txt',
      edits: [{ old_text: 'original', new_text: 'pwned' }],
    });
    assert.equal(result.isError, true, result.output);
    assert.equal(fs.readFileSync(path.join(box.outside, 'victim.txt'), 'utf8'), 'original\n');
  });

  describe('a folder swapped for a link between the check and the write', () => {
    it('is caught: nothing is written outside, the write fails saying so', async () => {
      const box = sandbox();
      fs.mkdirSync(path.join(box.root, 'src'));
      const checked = await resolveWorkspacePath(box.root, 'src/victim.txt', box.workspace);
      // The race: the checked folder becomes a link to the outside.
      fs.rmSync(path.join(box.root, 'src'), { recursive: true });
      fs.symlinkSync(box.outside, path.join(box.root, 'src'));
      const before = snapshot(box.outside);
      await assert.rejects(box.workspace.writeText(checked, 'pwned\n'), /outside the workspace|changed|not a folder/);
      assert.deepEqual(snapshot(box.outside), before);
    });

    it('is caught for a folder that did not exist yet and appears as a link', async () => {
      const box = sandbox();
      const checked = await resolveWorkspacePath(box.root, 'made/later/victim.txt', box.workspace);
      fs.symlinkSync(box.outside, path.join(box.root, 'made'));
      const before = snapshot(box.outside);
      await assert.rejects(box.workspace.writeText(checked, 'pwned\n'), /outside the workspace|not a folder/);
      assert.deepEqual(snapshot(box.outside), before);
    });

    it('a link put at the target itself is replaced, never written through', async () => {
      const box = sandbox();
      const checked = await resolveWorkspacePath(box.root, 'notes.txt', box.workspace);
      fs.symlinkSync(path.join(box.outside, 'victim.txt'), path.join(box.root, 'notes.txt'));
      await box.workspace.writeText(checked, 'mine\n');
      assert.equal(fs.readFileSync(path.join(box.outside, 'victim.txt'), 'utf8'), 'original\n');
      assert.equal(fs.lstatSync(path.join(box.root, 'notes.txt')).isFile(), true);
      assert.equal(fs.readFileSync(path.join(box.root, 'notes.txt'), 'utf8'), 'mine\n');
    });
  });

  it('leaves no temp file behind, written or refused, and temp names cannot be planted', async () => {
    const box = sandbox();
    // The old temp name was predictable: a link planted there must not matter.
    for (let pid = 0; pid < 5; pid++)
      fs.symlinkSync(
        path.join(box.outside, 'victim.txt'),
        path.join(box.root, `notes.txt.openagent-${process.pid + pid}.tmp`),
      );
    const ok = await run(box.tool('write_file'), { path: 'notes.txt', content: 'fine\n' });
    assert.equal(ok.isError, false, ok.output);
    assert.equal(fs.readFileSync(path.join(box.root, 'notes.txt'), 'utf8'), 'fine\n');
    assert.equal(fs.readFileSync(path.join(box.outside, 'victim.txt'), 'utf8'), 'original\n');
    const leftovers = fs.readdirSync(box.root).filter((name) => name.startsWith('.openagent-'));
    assert.deepEqual(leftovers, []);
  });
});
