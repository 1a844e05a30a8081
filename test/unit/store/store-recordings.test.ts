import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { contentOf } from '../../../src/core/replay/content-hash';
import type { RunManifest } from '../../../src/core/replay/recording';
import { MIGRATIONS } from '../../../src/store/schema';
import { openStore, tempDir, WASM } from './store-helpers';

const manifest = (conversationId: string, system: RunManifest['system']): RunManifest => ({
  format: 1,
  product: 'test',
  conversationId,
  startedAt: 1,
  place: { kind: 'workspace', root: '/p' },
  models: [],
  system,
  tools: [],
  policy: { hash: '', sources: [] },
  limits: {},
});

describe('the store: recordings', () => {
  it('a store of schema 4 opens: its conversations have no recording, new ones are recorded', async () => {
    const directory = tempDir();
    const SQL = await initSqlJs({ locateFile: () => WASM });
    const db = new SQL.Database();
    db.exec(`BEGIN; ${MIGRATIONS.slice(0, 4).join(';')}; PRAGMA user_version = 4; COMMIT;`);
    db.run(`INSERT INTO conversations (id, title, created_at, updated_at, settings) VALUES ('old', 'Old', 1, 2, '{}')`);
    fs.writeFileSync(path.join(directory, 'store.sqlite'), db.export());
    db.close();

    const { store } = await openStore(directory);
    assert.equal((await store.getConversation('old'))?.title, 'Old');
    assert.equal(await store.recordings.getRecording('old'), undefined);
    const system = contentOf('sys');
    await Promise.all([
      store.recordings.putContent(system.ref, 'sys'),
      store.recordings.saveManifest(manifest('new', system.ref)),
    ]);
    assert.equal((await store.recordings.getRecording('new'))?.manifest.system, system.ref);
    await store.close();
  });

  it('keeps content shared by two recordings until neither needs it', async () => {
    const { store } = await openStore(tempDir());
    const shared = contentOf('the same system prompt');
    const own = contentOf({ only: 'a' });
    await store.recordings.putContent(shared.ref, 'the same system prompt');
    await store.recordings.putContent(own.ref, { only: 'a' });
    await store.recordings.saveManifest(manifest('a', shared.ref));
    await store.recordings.putStep('a', { kind: 'prompt', step: 1, text: own.ref });
    await store.recordings.saveManifest(manifest('b', shared.ref));
    await store.deleteConversation('a');
    assert.equal(await store.recordings.hasContent(own.ref), false, 'what only a used is gone');
    assert.equal(await store.recordings.hasContent(shared.ref), true, 'what b uses stays');
    await store.deleteConversation('b');
    assert.deepEqual(await store.recordings.contentBytes(), { count: 0, bytes: 0 });
    await store.close();
  });

  it('refuses a ref that is not one, and writes nothing for it', async () => {
    const { store } = await openStore(tempDir());
    await assert.rejects(store.recordings.putContent('sha256:../../etc' as never, 'x'), /Not a content ref/);
    assert.deepEqual(await store.recordings.contentBytes(), { count: 0, bytes: 0 });
    await store.close();
  });
});
