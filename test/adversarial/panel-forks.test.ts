/**
 * The developer panel's tree of forks (SPEC 5b) against hostile data: titles and messages with
 * markup, control characters, bidirectional overrides and 10,000 characters; a chain of 200
 * forks; 500 forks of one conversation. The rows stay within the protocol's bounds (each text
 * one line of at most MAX_FORK_TEXT, at most MAX_FORK_ROWS rows), say how many are left out, and
 * always list the way down to the shown conversation — built from a real store.
 */
import assert from 'node:assert/strict';
import { ConversationForks, type ForkTree } from '../../src/core/session/conversation-forks';
import { forkPoints } from '../../src/core/session/fork-points';
import type { ConversationStore } from '../../src/core/ports';
import { forkRows, MAX_FORK_CHILDREN } from '../../src/host/panel/fork-rows';
import { hostToPanelSchema, MAX_FORK_ROWS, MAX_FORK_TEXT } from '../../src/protocol/messages';
import { openStore, tempDir } from '../unit/store/store-helpers';

const HOSTILE =
  '<img src=x onerror="window.__pwned=1">\u0000\u0007\u001b[31m\r\n\u202eevil\u202c **bold** [l](javascript:x) ' +
  'x'.repeat(10_000);

let ids = 0;

/** A saved conversation with one prompt and one answer, as the recorder stores them. */
async function conversation(store: ConversationStore, title: string, text = 'question'): Promise<string> {
  const id = `c${++ids}`;
  await store.saveConversation({ id, title, createdAt: 1_000 + ids, updatedAt: 1_000 + ids, settings: {} });
  await store.putMessage({ id: `${id}-0`, conversationId: id, seq: 0, role: 'user', content: { text }, createdAt: 1 });
  await store.putMessage({
    id: `${id}-1`,
    conversationId: id,
    seq: 1,
    role: 'assistant',
    content: { text: `answer: ${text}` },
    createdAt: 2,
  });
  return id;
}

function forksOf(store: ConversationStore): ConversationForks {
  return new ConversationForks({ store, now: () => 5_000 + ++ids, newId: () => `f${++ids}` });
}

const readPoints = (store: ConversationStore) => async (id: string) => forkPoints(await store.listMessages(id));

function assertBounded(message: { type: 'fork_tree'; rows: unknown[]; total: number }): void {
  assert.ok(hostToPanelSchema.safeParse(message).success, 'the rows fit the protocol');
  assert.ok(message.rows.length <= MAX_FORK_ROWS);
}

describe('attack: the developer panel tree of forks', function () {
  this.timeout(120_000);

  it('hostile titles and messages come out as one bounded line of plain text', async () => {
    const { store } = await openStore(tempDir());
    const root = await conversation(store, HOSTILE, HOSTILE);
    const forks = forksOf(store);
    await forks.fork(root, 1);
    const tree = (await forks.tree(root))!;
    const { rows, total } = await forkRows(tree, root, readPoints(store));
    assertBounded({ type: 'fork_tree', rows, total });
    for (const text of [rows[0]!.title, rows[1]!.title, rows[1]!.origin?.text ?? '']) {
      assert.ok(text.length <= MAX_FORK_TEXT, `cut to ${MAX_FORK_TEXT}: ${text.length}`);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(text, /[\u0000-\u001f\u007f\u202a-\u202e]/, 'no control characters or overrides');
      assert.match(text, /^(answer: )?<img src=x onerror="window.__pwned=1">/, 'markup kept as the text it is');
      assert.match(text, /…$/, 'says it was cut');
    }
    await store.close();
  });

  it('a chain of 200 forks is listed down to the shown one, without recursion', async () => {
    const { store } = await openStore(tempDir());
    const forks = forksOf(store);
    let id = await conversation(store, 'chain');
    const chain = [id];
    for (let level = 1; level <= 200; level++) {
      id = (await forks.fork(id, 1)).id;
      chain.push(id);
    }
    const shown = chain.at(-1)!;
    const tree = (await forks.tree(shown))!;
    const started = Date.now();
    const { rows, total } = await forkRows(tree, shown, readPoints(store));
    assertBounded({ type: 'fork_tree', rows, total });
    assert.equal(rows.at(-1)!.id, shown, 'the shown one is listed');
    assert.equal(rows.at(-1)!.shown, true);
    assert.deepEqual(
      rows.map((row) => row.depth),
      rows.map((_, index) => index),
      'each one level under the last',
    );
    // The core walks up at most 64 forks: the top of what is listed says there is more above.
    if (rows[0]!.id !== chain[0]) assert.equal(rows[0]!.parentGone, true);
    assert.ok(Date.now() - started < 60_000);
    await store.close();
  });

  it('500 forks of one conversation: 50 listed and the rest counted, the shown one always among them', async () => {
    const { store } = await openStore(tempDir());
    const forks = forksOf(store);
    const root = await conversation(store, 'popular');
    const children: string[] = [];
    for (let index = 0; index < 500; index++) children.push((await forks.fork(root, index % 2)).id);
    const shown = children[400]!;
    const tree = (await forks.tree(shown))!;
    const { rows, total } = await forkRows(tree, shown, readPoints(store));
    assertBounded({ type: 'fork_tree', rows, total });
    assert.equal(total, 501);
    assert.equal(rows.length, MAX_FORK_CHILDREN + 2, 'the root, 50 forks and the shown one');
    assert.equal(rows[0]!.more, 500 - MAX_FORK_CHILDREN - 1, 'the root says how many are not listed');
    assert.ok(rows.some((row) => row.id === shown && row.shown));
    await store.close();
  });

  it('a tree larger than the rows allowed keeps the way to the shown one and counts the rest', () => {
    // Synthetic: 40 branches each a chain of 20 (801 conversations), the shown one at the end of the last.
    let next = 0;
    const node = (parent?: string): ForkTree => ({
      conversation: {
        id: `n${next++}`,
        title: 't',
        createdAt: 1,
        updatedAt: 1,
        settings: {},
        ...(parent ? { forkedFrom: { conversationId: parent, seq: 0, reason: 'fork' as const } } : {}),
      },
      forks: [],
    });
    const root = node();
    let shown = '';
    for (let branch = 0; branch < 40; branch++) {
      let at = root;
      for (let level = 0; level < 20; level++) {
        const child = node(at.conversation.id);
        at.forks.push(child);
        at = child;
      }
      shown = at.conversation.id;
    }
    return forkRows(root, shown, async () => []).then(({ rows, total }) => {
      assertBounded({ type: 'fork_tree', rows, total });
      assert.equal(total, 801);
      assert.equal(rows.length, MAX_FORK_ROWS);
      assert.equal(rows.at(-1)!.id, shown, 'the way down to the shown one is listed');
      const counted = rows.reduce((sum, row) => sum + (row.more ?? 0), 0);
      assert.equal(counted, total - rows.length, 'every conversation not listed is counted once');
    });
  });
});
