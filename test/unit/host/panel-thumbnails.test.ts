/**
 * The developer panel's image thumbnails (issue 36), host side: a real session run against the
 * fake model server with a pasted picture, the panel controller asked for the thumbnail of the
 * image its user_message names, with real preparation and real thumbnails from a real ImageStore.
 * Then the cache's bounds, an image the store no longer has, and what a hostile panel may ask.
 */
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ConversationSession } from '../../../src/core/session/conversation-session';
import type { AgentEvent } from '../../../src/core/events/events';
import type { ImagePart } from '../../../src/core/llm/llm-client';
import { MemoryImageStore } from '../../../src/core/images/memory-image-store';
import { PanelController } from '../../../src/host/panel/panel-controller';
import {
  MAX_CACHED_THUMBNAILS,
  PanelThumbnails,
  THUMBNAILS_PER_POST,
  type PanelImageSource,
} from '../../../src/host/panel/panel-thumbnails';
import { prepareImage } from '../../../src/node/images/prepare-image';
import { imageThumbnail, PREVIEW_SIDE } from '../../../src/node/images/image-thumbnail';
import type { HostToPanel, PanelThumbnail } from '../../../src/protocol/messages';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { dimensionsOf, pngOf } from '../../fixtures/image-bytes';
import { waitUntil } from '../../harness/patience';

class RecordingWebview {
  readonly posts: HostToPanel[] = [];
  private readonly listeners = new Set<(message: unknown) => void>();
  onDidReceiveMessage(listener: (message: unknown) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
  postMessage(message: HostToPanel): Promise<boolean> {
    this.posts.push(structuredClone(message));
    return Promise.resolve(true);
  }
  send(message: unknown): void {
    for (const listener of this.listeners) listener(message);
  }
  thumbnails(): PanelThumbnail[] {
    return this.posts.flatMap((post) => (post.type === 'image_thumbnails' ? post.thumbnails : []));
  }
  events(): AgentEvent[] {
    return this.posts.flatMap((post) => (post.type === 'agent_events' ? post.events : []));
  }
}
const asWebview = (webview: RecordingWebview) => webview as unknown as vscode.Webview;
const sha = (n: number) => n.toString(16).padStart(64, '0');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('developer panel thumbnails: a real run with a pasted picture', () => {
  let server: FakeModelServer;
  let session: ConversationSession;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: { name: 'look', turns: [{ text: 'A gradient.' }] } });
    let ids = 0;
    session = new ConversationSession({
      readSettings: () => ({ provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: server.anthropicBaseUrl }),
      secrets: { getApiKey: async () => 'test-key-thumbnails' },
      clock: { now: () => Date.now() },
      systemPrompt: () => 'You are a test agent.',
      newId: () => `conv-${++ids}`,
      tools: () => [],
      approvals: { request: async () => ({ approved: true, source: 'user' }) },
    });
  });
  afterEach(async () => {
    await session.dispose();
    await server.close();
  });

  it('answers the row of a user_message with a small JPEG data URL of its image, and says when one is gone', async () => {
    const store = new MemoryImageStore();
    const picture = await prepareImage(await pngOf(1200, 800), { name: 'shot.png' });
    await store.put(picture);
    const webview = new RecordingWebview();
    const panel = new PanelController(
      asWebview(webview),
      session,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      { store, thumbnail: imageThumbnail },
    );
    webview.send({ type: 'panel_ready' });
    assert.equal(
      await session.submitWithMentions('what is this?', async () => undefined, 'chat', [picture]),
      undefined,
    );
    await waitUntil(() => webview.events().some((event) => event.type === 'done'), 'the run to end');

    const prompt = webview.events().find((event) => event.type === 'user_message');
    assert.ok(prompt?.type === 'user_message' && prompt.images?.length === 1, 'the event names the image');
    const named = prompt.images![0]!.sha256;
    assert.equal(named, picture.sha256);
    // What the panel's row on screen asks: its image, and one the store never had (a deleted conversation's).
    webview.send({ type: 'image_thumbnails_request', sha256s: [named, sha(7)] });
    await waitUntil(() => webview.thumbnails().length === 2, 'the answers');

    const [made, gone] = webview.thumbnails();
    assert.equal(made!.sha256, named);
    assert.match(made!.url ?? '', /^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/);
    const size = dimensionsOf(made!.url!.slice(made!.url!.indexOf(',') + 1));
    assert.deepEqual([size.width, size.height], [PREVIEW_SIDE, Math.round((PREVIEW_SIDE * 800) / 1200)]);
    assert.ok(made!.url!.length < 30_000, `a thumbnail is a few kilobytes, not ${made!.url!.length} characters`);
    assert.deepEqual(gone, { sha256: sha(7), problem: 'gone' });
    panel.dispose();
  });

  it('drops what does not fit the protocol: other strings than sha256s, too many at once', async () => {
    const webview = new RecordingWebview();
    const made: string[] = [];
    const source: PanelImageSource = {
      store: { get: async (sha256) => ({ ...fakeImage(sha256) }) },
      thumbnail: async (image) => (made.push(image.sha256), 'data:image/png;base64,AAAA'),
    };
    const panel = new PanelController(
      asWebview(webview),
      session,
      ...([undefined, undefined, undefined, undefined, undefined, undefined] as const),
      source,
    );
    webview.send({ type: 'panel_ready' });
    for (const sha256s of [
      ['../../etc/passwd'],
      [sha(0xabcdef).toUpperCase()],
      [`${sha(1)}0`],
      [`"]<img src=x onerror=alert(1)>${sha(1)}`.slice(0, 64)],
      Array.from({ length: 49 }, (_, index) => sha(index)),
      [],
    ])
      webview.send({ type: 'image_thumbnails_request', sha256s });
    webview.send({ type: 'image_thumbnails_request', sha256s: [sha(1)], extra: true });
    await sleep(50);
    assert.deepEqual(webview.thumbnails(), []);
    assert.deepEqual(made, []);
    panel.dispose();
  });
});

function fakeImage(sha256: string, data = 'AAAA'): ImagePart {
  return { type: 'image', sha256, mediaType: 'image/png', data, width: 10, height: 10 } as ImagePart;
}

describe('developer panel thumbnails: the cache and bad sources', () => {
  function counting(url: (sha256: string) => string | undefined = () => 'data:image/png;base64,AAAA') {
    const made: string[] = [];
    const posts: HostToPanel[] = [];
    const stored = new Set<string>();
    const source: PanelImageSource = {
      store: { get: async (sha256) => (stored.has(sha256) ? fakeImage(sha256) : undefined) },
      thumbnail: async (image) => (made.push(image.sha256), url(image.sha256)),
    };
    const thumbnails = new PanelThumbnails(source, (message) => posts.push(message));
    const answers = () => posts.flatMap((post) => (post.type === 'image_thumbnails' ? post.thumbnails : []));
    return { made, posts, stored, thumbnails, answers };
  }

  it('makes each image once, keeps at most MAX_CACHED_THUMBNAILS, and the oldest are made again', async () => {
    const { made, stored, thumbnails, posts } = counting();
    const all = Array.from({ length: MAX_CACHED_THUMBNAILS + 40 }, (_, index) => sha(index));
    for (const sha256 of all) stored.add(sha256);
    for (let start = 0; start < all.length; start += 40) await thumbnails.request(all.slice(start, start + 40));
    assert.equal(made.length, all.length);
    assert.equal(thumbnails.cachedCount, MAX_CACHED_THUMBNAILS);
    assert.ok(posts.every((post) => post.type === 'image_thumbnails' && post.thumbnails.length <= THUMBNAILS_PER_POST));
    await thumbnails.request([all.at(-1)!, all.at(-2)!]);
    assert.equal(made.length, all.length, 'the newest come from the cache');
    await thumbnails.request([all[0]!]);
    assert.equal(made.length, all.length + 1, 'the oldest was let go and is made again');
    // Two rows naming one image at once: one decode.
    await Promise.all([thumbnails.request([sha(9999)]), thumbnails.request([sha(9999)])]);
    assert.equal(made.filter((sha256) => sha256 === sha(9999)).length, 0, 'not stored: nothing to make');
    stored.add(sha(9998));
    await Promise.all([thumbnails.request([sha(9998)]), thumbnails.request([sha(9998)])]);
    assert.equal(made.filter((sha256) => sha256 === sha(9998)).length, 1);
  });

  it('keeps no more characters than its budget, however large the thumbnails', async () => {
    const big = `data:image/jpeg;base64,${'A'.repeat(149_996)}`;
    const { stored, thumbnails } = counting(() => big);
    for (let index = 0; index < 100; index++) stored.add(sha(index));
    await thumbnails.request(Array.from({ length: 48 }, (_, index) => sha(index)));
    await thumbnails.request(Array.from({ length: 48 }, (_, index) => sha(index + 48)));
    assert.ok(thumbnails.cachedCount * big.length <= 8_000_000, `${thumbnails.cachedCount} kept`);
    assert.ok(thumbnails.cachedCount >= 40);
  });

  it('says "gone" for an image not stored, and shows it once it is (a missing one is not kept)', async () => {
    const { stored, thumbnails, answers } = counting();
    await thumbnails.request([sha(1)]);
    assert.deepEqual(answers(), [{ sha256: sha(1), problem: 'gone' }]);
    stored.add(sha(1));
    await thumbnails.request([sha(1)]);
    assert.deepEqual(answers()[1], { sha256: sha(1), url: 'data:image/png;base64,AAAA' });
  });

  it('gives no preview, never a bad URL, when the thumbnail fails or is not an image data URL', async () => {
    const urls: Record<string, string | undefined> = {
      [sha(1)]: 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      [sha(2)]: 'javascript:alert(1)',
      [sha(3)]: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
      [sha(4)]: undefined,
      [sha(5)]: 'data:image/png;base64,AAAA" onerror="alert(1)',
    };
    const { stored, thumbnails, answers } = counting((sha256) => urls[sha256]);
    for (const sha256 of Object.keys(urls)) stored.add(sha256);
    await thumbnails.request(Object.keys(urls));
    assert.deepEqual(
      answers(),
      Object.keys(urls).map((sha256) => ({ sha256, problem: 'no_preview' })),
    );
    const posts: HostToPanel[] = [];
    const throwing = new PanelThumbnails(
      { store: { get: async () => fakeImage(sha(6)) }, thumbnail: () => Promise.reject(new Error('corrupt')) },
      (message) => posts.push(message),
    );
    await throwing.request([sha(6)]);
    assert.deepEqual(posts, [{ type: 'image_thumbnails', thumbnails: [{ sha256: sha(6), problem: 'no_preview' }] }]);
  });

  it('answers "no preview" while the store cannot be read, and tries again on the next look', async () => {
    let broken = true;
    const posts: HostToPanel[] = [];
    const thumbnails = new PanelThumbnails(
      {
        store: {
          get: async (sha256) => {
            if (broken) throw new Error('database is locked');
            return fakeImage(sha256);
          },
        },
        thumbnail: async () => 'data:image/png;base64,AAAA',
      },
      (message) => posts.push(message),
    );
    await thumbnails.request([sha(1)]);
    broken = false;
    await thumbnails.request([sha(1)]);
    assert.deepEqual(
      posts.flatMap((post) => (post.type === 'image_thumbnails' ? post.thumbnails : [])),
      [
        { sha256: sha(1), problem: 'no_preview' },
        { sha256: sha(1), url: 'data:image/png;base64,AAAA' },
      ],
    );
  });

  it('without an image source every image has no preview', async () => {
    const posts: HostToPanel[] = [];
    await new PanelThumbnails(undefined, (message) => posts.push(message)).request([sha(1)]);
    assert.deepEqual(posts, [{ type: 'image_thumbnails', thumbnails: [{ sha256: sha(1), problem: 'no_preview' }] }]);
  });
});
