import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AtomicTextFile } from '../../../src/node/atomic-text-file';

describe('AtomicTextFile', () => {
  const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-atomic-'));

  it('reads nothing where there is no file, and back what was written (creating its folder)', async () => {
    const file = path.join(folder(), 'storage', 'chat.json');
    const document = new AtomicTextFile(file);
    assert.equal(await document.read(), undefined);
    await document.write('{"draft":"héllo ✓"}');
    assert.equal(await document.read(), '{"draft":"héllo ✓"}');
    assert.equal(await new AtomicTextFile(file).read(), '{"draft":"héllo ✓"}', 'another window reads it');
  });

  it('leaves one whole document and no temporary files after many overlapping writes', async () => {
    const directory = folder();
    const file = path.join(directory, 'chat.json');
    const documents = Array.from({ length: 40 }, (_, index) => JSON.stringify({ index, text: 'x'.repeat(50_000) }));
    const writers = [new AtomicTextFile(file), new AtomicTextFile(file)];
    await Promise.all(documents.map((text, index) => writers[index % 2]!.write(text)));
    const final = await writers[0]!.read();
    assert.ok(final !== undefined && documents.includes(final), 'one of the documents, whole');
    assert.deepEqual(fs.readdirSync(directory), ['chat.json']);
  });

  it('fails loudly where it cannot write, and leaves what was there', async () => {
    const directory = folder();
    const file = path.join(directory, 'chat.json');
    await new AtomicTextFile(file).write('kept');
    // A folder where the file should be: the rename cannot replace it.
    const blocked = path.join(directory, 'blocked');
    fs.mkdirSync(path.join(blocked, 'chat.json'), { recursive: true });
    await assert.rejects(new AtomicTextFile(path.join(blocked, 'chat.json')).write('lost?'));
    assert.deepEqual(fs.readdirSync(blocked), ['chat.json'], 'no temporary file left behind');
    assert.equal(await new AtomicTextFile(file).read(), 'kept');
  });
});
