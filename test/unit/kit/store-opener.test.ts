import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StoreOpener } from '../../../src/kit/store-opener';
import { WASM } from '../store/store-helpers';

describe('the store opener both roots use', () => {
  const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-opener-'));

  it('opens once, and redacts secrets before they reach the disk', async () => {
    const directory = folder();
    const told: string[] = [];
    const opener = new StoreOpener({ directory, wasmPath: WASM, tell: (_severity, message) => told.push(message) });
    const store = await opener.open();
    assert.equal(await opener.open(), store);
    const key = `sk-ant-api03-${'a'.repeat(90)}`;
    await store.saveConversation({ id: 'c', title: `key ${key}`, createdAt: 1, updatedAt: 1, settings: {} });
    await opener.close();
    const onDisk = fs.readdirSync(directory).map((name) => fs.readFileSync(path.join(directory, name), 'latin1'));
    assert.ok(onDisk.length > 0);
    for (const bytes of onDisk) assert.ok(!bytes.includes(key), 'the key reached the disk');
    assert.deepEqual(told, []);
  });

  it('tells about a damaged store it kept aside, and each save failure once', async () => {
    const directory = folder();
    fs.writeFileSync(path.join(directory, 'store.sqlite'), Buffer.from('not a database at all'.repeat(100)));
    const told: Array<[string, string]> = [];
    const opener = new StoreOpener({
      directory,
      wasmPath: WASM,
      tell: (severity, message) => told.push([severity, message]),
    });
    await opener.open();
    assert.equal(told.length, 1);
    assert.equal(told[0]![0], 'warning');
    assert.match(told[0]![1], /kept at .*unreadable/);
    opener.reportError(new Error('disk full'));
    opener.reportError(new Error('disk full'));
    opener.reportError(new Error('read-only'));
    assert.deepEqual(
      told.slice(1).map(([severity, message]) => [severity, message.replace(directory, 'DIR')]),
      [
        ['error', 'Could not save the conversation in DIR: disk full'],
        ['error', 'Could not save the conversation in DIR: read-only'],
      ],
    );
    await opener.close();
  });

  it('tries again after a failed open, and openOrReport tells the failure instead of throwing', async () => {
    const blocker = path.join(folder(), 'a-file');
    fs.writeFileSync(blocker, '');
    const told: string[] = [];
    // The store folder cannot be created under a file.
    const opener = new StoreOpener({
      directory: path.join(blocker, 'store'),
      wasmPath: WASM,
      tell: (_severity, message) => told.push(message),
    });
    assert.equal(await opener.openOrReport(), undefined);
    assert.equal(told.length, 1);
    await assert.rejects(opener.open());
    fs.rmSync(blocker);
    fs.mkdirSync(blocker);
    assert.ok(await opener.open(), 'opened once the folder could be made');
    await opener.close();
  });
});
