import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encodeEntry } from '../../../src/store/journal';
import { nodeStoreFiles, type StoreFiles } from '../../../src/store/store-files';
import { StoreError } from '../../../src/store/store-error';
import { message, openStore, tempDir, WASM } from './store-helpers';

const conversation = (id: string, updatedAt = 1, title = `Chat ${id}`) => ({
  id,
  title,
  createdAt: 1,
  updatedAt,
  settings: { model: 'fake-model', planMode: false },
});

describe('SqlJsStore', () => {
  it('keeps conversations, messages, usage and audit across reopening', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    await store.saveConversation(conversation('c1', 5, 'Fix the tests'));
    await store.saveConversation(conversation('c2', 9, 'Write docs'));
    await store.putMessage(message('c1', 0, 'hello'));
    await store.putMessage(message('c1', 1, 'partial', 'assistant'));
    await store.putMessage(message('c1', 1, 'partial answer, now complete', 'assistant'));
    await store.recordUsage({
      id: 'u1',
      conversationId: 'c1',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      inputTokens: 100,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.5,
      time: Date.UTC(2026, 10, 22),
    });
    await store.recordUsage({
      id: 'u2',
      conversationId: 'c2',
      provider: 'ollama',
      model: 'qwen',
      inputTokens: 7,
      outputTokens: 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      time: Date.UTC(2026, 10, 23),
    });
    await store.recordAudit({
      id: 'a1',
      conversationId: 'c1',
      time: 3,
      kind: 'tool_call',
      data: { tool: 'bash', decision: 'approved' },
    });
    await store.close();

    const { store: reopened } = await openStore(directory);
    assert.deepEqual(
      (await reopened.listConversations()).map((item) => item.id),
      ['c2', 'c1'],
    );
    assert.deepEqual(
      (await reopened.listConversations({ search: 'tests' })).map((item) => item.id),
      ['c1'],
    );
    assert.deepEqual(
      (await reopened.listConversations({ search: 'now complete' })).map((item) => item.id),
      ['c1'],
      'search finds words of a prompt or answer, not only the title',
    );
    assert.deepEqual(await reopened.listConversations({ search: '100%_' }), [], 'LIKE wildcards are literal');
    const messages = await reopened.listMessages('c1');
    assert.equal(messages.length, 2);
    assert.match(JSON.stringify(messages[1]?.content), /now complete/);
    assert.equal((await reopened.usageTotals({ conversationId: 'c1' })).costUsd, 0.5);
    assert.equal((await reopened.usageTotals({ day: '2026-11-23' })).inputTokens, 7);
    assert.equal((await reopened.usageTotals({ model: 'claude-sonnet-4-5' })).calls, 1);
    assert.deepEqual((await reopened.listAudit({ conversationId: 'c1' }))[0]?.data, {
      tool: 'bash',
      decision: 'approved',
    });
    await reopened.deleteConversation('c1');
    assert.deepEqual(await reopened.listMessages('c1'), []);
    await reopened.close();
  });

  it('folds the journal into the snapshot and still reads everything back', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory, { minFoldBytes: 2_000 });
    for (let seq = 0; seq < 200; seq++) await store.putMessage(message('c1', seq, `message ${seq} ${'x'.repeat(50)}`));
    await store.close();
    const snapshot = fs.statSync(path.join(directory, 'store.sqlite')).size;
    const journal = fs.statSync(path.join(directory, 'store.journal')).size;
    assert.ok(snapshot > 0, 'a snapshot was written');
    // 200 entries of ~170 bytes were written: a journal below the fold threshold (a quarter of
    // the snapshot) has restarted since. Where it stands depends on when the last fold came.
    assert.ok(journal < 200 * 150, `the journal (${journal} bytes) never restarted`);
    assert.ok(journal < Math.max(2_000, snapshot * 0.25) + 500, `the journal (${journal} bytes) passed the threshold`);
    const { store: reopened } = await openStore(directory);
    assert.equal((await reopened.listMessages('c1')).length, 200);
    await reopened.close();
  });

  it('sees what another store instance (another window) wrote', async () => {
    const directory = tempDir();
    const { store: first } = await openStore(directory, { minFoldBytes: 1_000 });
    const { store: second } = await openStore(directory, { minFoldBytes: 1_000 });
    for (let seq = 0; seq < 60; seq++) {
      await (seq % 2 ? first : second).putMessage(
        message('shared', seq, `from ${seq % 2 ? 'first' : 'second'} ${'y'.repeat(40)}`),
      );
    }
    assert.equal((await first.listMessages('shared')).length, 60);
    assert.equal((await second.listMessages('shared')).length, 60);
    await first.close();
    await second.close();
  });

  for (const [name, bytes] of [
    ['a zero-byte', Buffer.alloc(0)],
    ['a random-bytes', Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256))],
  ] as const) {
    it(`keeps ${name} store file aside, starts fresh and says so`, async () => {
      const directory = tempDir();
      fs.writeFileSync(path.join(directory, 'store.sqlite'), bytes);
      const { store, recovered } = await openStore(directory);
      const kept = recovered?.kept[0];
      assert.ok(kept && fs.existsSync(kept), 'the unreadable file is kept');
      assert.deepEqual(fs.readFileSync(kept), bytes);
      assert.match(recovered!.message, /could not be read/);
      await store.saveConversation(conversation('fresh'));
      assert.equal((await store.listConversations()).length, 1);
      await store.close();
    });
  }

  describe('never overwrites what it cannot read (issue 16)', () => {
    /** A store with a folded snapshot (conversation "folded") and journal entries after it ("journaled"). */
    async function storeWithBoth(): Promise<string> {
      const directory = tempDir();
      const { store } = await openStore(directory, { minFoldBytes: 10, foldRatio: 1_000 });
      await store.saveConversation(conversation('folded'));
      await store.putMessage(message('folded', 0, 'a turn before the fold'));
      await store.close();
      // Reopened with a high fold ratio, what follows stays in the journal.
      const { store: again } = await openStore(directory, { minFoldBytes: 1_000_000_000 });
      await again.saveConversation(conversation('journaled'));
      await again.putMessage(message('journaled', 0, 'a turn in the journal'));
      await again.close();
      return directory;
    }
    const journal = (directory: string) => path.join(directory, 'store.journal');
    const snapshot = (directory: string) => path.join(directory, 'store.sqlite');

    it('a flipped byte in the journal header: the journal is kept aside and every entry recovered', async () => {
      const directory = await storeWithBoth();
      const bytes = fs.readFileSync(journal(directory));
      bytes[3] = bytes[3]! ^ 0x20;
      fs.writeFileSync(journal(directory), bytes);
      const { store, recovered } = await openStore(directory);
      assert.ok(recovered, 'the user is told');
      assert.match(recovered.message, /damaged first line/);
      assert.deepEqual(fs.readFileSync(recovered.kept[0]!), bytes, 'the damaged journal is kept as it was');
      assert.deepEqual((await store.listConversations()).map((item) => item.id).sort(), ['folded', 'journaled']);
      assert.equal((await store.listMessages('journaled')).length, 1);
      await store.close();
      const { store: reopened, recovered: again } = await openStore(directory);
      assert.equal(again, undefined, 'recovered for good: the next open is clean');
      assert.equal((await reopened.listMessages('journaled')).length, 1);
      await reopened.close();
    });

    it('a journal of a newer generation than the snapshot: its entries are recovered, not dropped', async () => {
      const directory = await storeWithBoth();
      const text = fs.readFileSync(journal(directory), 'utf8').replace(/"generation":\d+/, '"generation":99');
      fs.writeFileSync(journal(directory), text);
      const { store, recovered } = await openStore(directory);
      assert.match(recovered?.message ?? '', /newer database file/);
      assert.equal((await store.listMessages('journaled')).length, 1);
      await store.close();
    });

    it("corrupt bytes early in the snapshot: it is kept aside and the journal's turns recovered", async () => {
      const directory = await storeWithBoth();
      const bytes = fs.readFileSync(snapshot(directory));
      for (let at = 100; at < 140; at++) bytes[at] = 0xff;
      fs.writeFileSync(snapshot(directory), bytes);
      const { store, recovered } = await openStore(directory);
      assert.match(recovered?.message ?? '', /database file could not be read/);
      assert.equal(recovered?.kept.length, 2, 'the snapshot and a copy of the journal');
      assert.deepEqual(fs.readFileSync(recovered!.kept[0]!), bytes);
      assert.equal((await store.listMessages('journaled')).length, 1, "the journal's turn is kept");
      await store.saveConversation(conversation('after'));
      await store.close();
      const { store: reopened } = await openStore(directory);
      assert.ok((await reopened.listConversations()).some((item) => item.id === 'after'));
      await reopened.close();
    });
  });

  it('quarantines a store written by a newer version instead of touching it', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory, { minFoldBytes: 10 });
    await store.saveConversation(conversation('old'));
    await store.close();
    // Make the snapshot claim a future schema version.
    const initSqlJs = (await import('sql.js')).default;
    const SQL = await initSqlJs({ locateFile: () => WASM });
    const db = new SQL.Database(fs.readFileSync(path.join(directory, 'store.sqlite')));
    db.run('PRAGMA user_version = 99');
    fs.writeFileSync(path.join(directory, 'store.sqlite'), db.export());
    const { store: reopened, quarantined } = await openStore(directory);
    assert.equal(quarantined?.error.kind, 'future_schema');
    assert.match(quarantined!.error.message, /newer OpenAgent/);
    assert.ok(fs.existsSync(quarantined!.path));
    assert.deepEqual(await reopened.listConversations(), []);
    await reopened.close();
  });

  for (const [code, kind] of [
    ['ENOSPC', 'disk_full'],
    ['EROFS', 'read_only'],
  ] as const) {
    it(`returns a clear ${kind} error and keeps what was saved when the disk says ${code}`, async () => {
      const directory = tempDir();
      let failing = false;
      const fail = () => Object.assign(new Error(code), { code });
      const files: StoreFiles = {
        ...nodeStoreFiles,
        appendDurable: (file, data) => (failing ? Promise.reject(fail()) : nodeStoreFiles.appendDurable(file, data)),
        writeAtomic: (file, data) => (failing ? Promise.reject(fail()) : nodeStoreFiles.writeAtomic(file, data)),
      };
      const { store } = await openStore(directory, { files, minFoldBytes: 10 });
      await store.saveConversation(conversation('kept'));
      failing = true;
      await assert.rejects(store.saveConversation(conversation('lost')), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.equal(error.kind, kind);
        assert.match(error.message, /Nothing already saved was lost/);
        return true;
      });
      assert.deepEqual(
        (await store.listConversations()).map((item) => item.id),
        ['kept'],
      );
      await store.close();
      const { store: reopened } = await openStore(directory);
      assert.deepEqual(
        (await reopened.listConversations()).map((item) => item.id),
        ['kept'],
      );
      await reopened.close();
    });
  }

  it('never stores an API key, even when settings, messages and traces carry one', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory, { minFoldBytes: 10 });
    const key = 'sk-ant-api03-SECRETSECRETSECRET';
    await store.saveConversation({
      ...conversation('c'),
      settings: { model: 'm', apiKey: key, provider: 'anthropic' },
    });
    await store.putMessage(message('c', 0, `my key is ${key}, please use it`));
    await store.putMessage({
      ...message('c', 1, 'trace'),
      role: 'event',
      content: { type: 'llm_request', payload: { headers: { 'x-api-key': key, authorization: `Bearer ${key}` } } },
    });
    await store.recordAudit({
      id: 'a',
      conversationId: 'c',
      time: 1,
      kind: 'model_call',
      data: { request: `curl -H "x-api-key: ${key}"` },
    });
    await store.close();
    for (const file of fs.readdirSync(directory)) {
      assert.ok(!fs.readFileSync(path.join(directory, file)).includes('SECRETSECRET'), `${file} holds the key`);
    }
    const { store: reopened } = await openStore(directory);
    assert.match(JSON.stringify(await reopened.listMessages('c')), /my key is \[REDACTED\], please use it/);
    await reopened.close();
  });

  describe('a fold cut off by a dead process', () => {
    /** A store with 5 messages in its journal, and a process id that is not running. */
    async function storeWithJournal(): Promise<{ directory: string; deadPid: number }> {
      const directory = tempDir();
      const { store } = await openStore(directory);
      await store.saveConversation({ id: 'c', title: 'c', createdAt: 1, updatedAt: 1, settings: {} });
      for (let seq = 0; seq < 5; seq++) await store.putMessage(message('c', seq, `turn ${seq}`));
      await store.close();
      const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
      return { directory, deadPid: Number(child.stdout.toString()) };
    }

    it('puts the journal it took back in place, and nothing is lost', async () => {
      const { directory, deadPid } = await storeWithJournal();
      // Killed right after taking the journal away: no journal, only the taken file.
      fs.renameSync(
        path.join(directory, 'store.journal'),
        path.join(directory, `store.journal.folding-${deadPid}-${Date.now()}-abcd1234`),
      );
      const { store, recovered } = await openStore(directory);
      assert.equal(recovered, undefined);
      assert.deepEqual(
        (await store.listMessages('c')).map((stored) => stored.id),
        [0, 1, 2, 3, 4].map((seq) => `c-m${seq}`),
      );
      await store.putMessage(message('c', 5, 'after'));
      await store.close();
      assert.deepEqual(
        fs.readdirSync(directory).filter((name) => name.includes('folding')),
        [],
        'the taken journal is gone once it is back',
      );
    });

    it('takes in what is newer in a taken journal left beside a new one, and removes it', async () => {
      const { directory, deadPid } = await storeWithJournal();
      const taken = path.join(directory, `store.journal.folding-${deadPid}-${Date.now()}-abcd1234`);
      fs.copyFileSync(path.join(directory, 'store.journal'), taken);
      // The taken file also holds a line appended by another process just before the fold took it.
      fs.appendFileSync(taken, encodeEntry({ op: 'message', value: message('c', 9, 'appended late') }));
      const { store } = await openStore(directory);
      const messages = await store.listMessages('c');
      assert.deepEqual(
        messages.map((stored) => stored.id),
        [0, 1, 2, 3, 4, 9].map((seq) => `c-m${seq}`),
      );
      await store.close();
      assert.equal(fs.existsSync(taken), false);
    });
  });
});
