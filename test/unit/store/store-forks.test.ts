/**
 * Forks in the store (schema 4): a store written before forks existed opens with everything it
 * held and can fork; a fork and where it came from survive reopening (from the journal and from a
 * folded snapshot) and later saves of the conversation that know nothing of forks; a rewind
 * removes only what comes after its point.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/store/schema';
import type { StoredConversation } from '../../../src/core/ports';
import { message, openStore, tempDir, WASM } from './store-helpers';

const conversation = (id: string, extra: Partial<StoredConversation> = {}): StoredConversation => ({
  id,
  title: `title ${id}`,
  createdAt: 1,
  updatedAt: 1,
  settings: { model: 'm' },
  ...extra,
});

describe('the store: forks', () => {
  it('is schema 6 (forks came with 4, recordings with 5, images with 6)', () => assert.equal(SCHEMA_VERSION, 6));

  it('a store of schema 3 (before forks) opens with what it held, and can fork', async () => {
    const directory = tempDir();
    const SQL = await initSqlJs({ locateFile: () => WASM });
    const db = new SQL.Database();
    db.exec(`BEGIN; ${MIGRATIONS.slice(0, 3).join(';')}; PRAGMA user_version = 3; COMMIT;`);
    db.run(`INSERT INTO conversations VALUES ('old', 'Old one', 1, 2, '{}')`);
    db.run(`INSERT INTO messages VALUES ('old-0', 'old', 0, 'user', '{"text":"hi"}', 1)`);
    db.run(`INSERT INTO messages VALUES ('old-1', 'old', 1, 'assistant', '{"text":"hello"}', 2)`);
    fs.writeFileSync(path.join(directory, 'store.sqlite'), db.export());
    db.close();

    const { store, quarantined, recovered } = await openStore(directory);
    assert.equal(quarantined, undefined);
    assert.equal(recovered, undefined);
    const [old] = await store.listConversations();
    assert.deepEqual(old, { id: 'old', title: 'Old one', createdAt: 1, updatedAt: 2, settings: {} });
    await store.forkConversation({
      conversation: { ...conversation('f'), forkedFrom: { conversationId: 'old', seq: 0, reason: 'fork' } },
      copyUpTo: 0,
      add: [],
    });
    assert.deepEqual(
      (await store.listMessages('f')).map((m) => [m.id, m.seq, m.content]),
      [['f-0', 0, { text: 'hi' }]],
    );
    assert.deepEqual(
      (await store.listForks('old')).map((fork) => fork.id),
      ['f'],
    );
    await store.close();
    const reopened = await openStore(directory);
    assert.equal((await reopened.store.getConversation('f'))?.forkedFrom?.conversationId, 'old');
    assert.equal((await reopened.store.listMessages('old')).length, 2);
    await reopened.store.close();
  });

  it('a fork keeps its origin through reopening, a fold, and saves that do not name it', async () => {
    const directory = tempDir();
    // Folds at every write: the snapshot, not only the journal, is read back.
    const { store } = await openStore(directory, { minFoldBytes: 1, foldRatio: 0 });
    await store.saveConversation(conversation('p'));
    for (let seq = 0; seq < 5; seq++)
      await store.putMessage(message('p', seq, `m${seq}`, seq % 2 ? 'assistant' : 'user'));
    await store.forkConversation({
      conversation: { ...conversation('f'), forkedFrom: { conversationId: 'p', seq: 2, reason: 'fork' } },
      copyUpTo: 2,
      add: [{ ...message('f', 3, 'marker', 'event'), id: 'f-3' }],
    });
    // A rename (or the recorder's touch) saves the conversation without its origin.
    await store.saveConversation(conversation('f', { title: 'renamed', updatedAt: 9 }));
    await store.close();

    const { store: reopened } = await openStore(directory);
    const fork = await reopened.getConversation('f');
    assert.equal(fork?.title, 'renamed');
    assert.deepEqual(fork?.forkedFrom, { conversationId: 'p', seq: 2, reason: 'fork' });
    assert.deepEqual(
      (await reopened.listMessages('f')).map((m) => m.seq),
      [0, 1, 2, 3],
    );
    assert.equal((await reopened.listMessages('p')).length, 5, 'the parent keeps all its messages');
    // Deleting the parent leaves the fork whole.
    await reopened.deleteConversation('p');
    assert.equal((await reopened.listMessages('f')).length, 4);
    await reopened.close();
  });

  it('a rewind removes the messages from its point on and writes its marker, in one write', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    await store.saveConversation(conversation('c'));
    for (let seq = 0; seq < 6; seq++) await store.putMessage(message('c', seq, `m${seq}`));
    const journal = path.join(directory, 'store.journal');
    const size = fs.statSync(journal).size;
    await store.rewindConversation('c', 3, { ...message('c', 6, 'marker', 'event'), id: 'c-6' });
    assert.equal(fs.readFileSync(journal, 'utf8').slice(size).split('\n').filter(Boolean).length, 1);
    assert.deepEqual(
      (await store.listMessages('c')).map((m) => m.seq),
      [0, 1, 2, 6],
    );
    await store.close();
    const { store: reopened } = await openStore(directory);
    assert.deepEqual(
      (await reopened.listMessages('c')).map((m) => m.seq),
      [0, 1, 2, 6],
    );
    await reopened.close();
  });
});
