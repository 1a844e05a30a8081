/**
 * Hostile images from the chat's composer (issue 36). A webview is untrusted: the host re-probes
 * every byte, whatever name or type the page claims. Each bad attachment is dropped or refused
 * with its reason, nothing is sent half-way, and the chat goes on working.
 */
import assert from 'node:assert/strict';
import { fakeChatHost } from '../fixtures/fake-chat-host';
import { waitUntil } from '../harness/patience';
import { pngOf } from '../fixtures/image-bytes';
import { MemoryImageStore } from '../../src/core/images/memory-image-store';
import { prepareImage } from '../../src/node/images/prepare-image';
import { imageThumbnail } from '../../src/node/images/image-thumbnail';
import { ATTACHED_IMAGE_MAX_BYTES, parseWebviewMessage, type HostToWebview } from '../../src/protocol/messages';

async function readyHost() {
  const host = fakeChatHost(undefined, {
    images: {
      store: new MemoryImageStore(),
      prepare: (bytes, name) => prepareImage(bytes, { name }),
      thumbnail: imageThumbnail,
      modelSeesImages: () => ({ model: 'claude-sonnet-4-5', sees: true }),
    },
  });
  host.webview.send({ type: 'webview_ready' });
  await waitUntil(() => host.webview.posts.some((post) => post.message.type === 'chat_status'), 'the handshake');
  const results = () =>
    host.webview.posts
      .map((post) => post.message)
      .filter(
        (message): message is Extract<HostToWebview, { type: 'prompt_result' }> => message.type === 'prompt_result',
      );
  return { ...host, results };
}

const submit = (images: unknown[], requestId = 'r1') => ({ type: 'prompt_submit', requestId, text: 'look', images });

describe('hostile images from the composer', () => {
  let png: string;
  before(async () => {
    png = (await pngOf(50, 40)).toString('base64');
  });

  it('drops a message whose base64 is garbled, too large, or carries 25 images', () => {
    const one = { name: 'a.png', mediaType: 'image/png', data: png };
    assert.ok(parseWebviewMessage(submit([one])), 'a well-formed one passes');
    assert.equal(parseWebviewMessage(submit([{ ...one, data: 'iVBOR<script>alert(1)</script>' }])), undefined);
    assert.equal(parseWebviewMessage(submit([{ ...one, data: '' }])), undefined);
    assert.equal(parseWebviewMessage(submit(Array.from({ length: 25 }, () => one))), undefined);
    assert.equal(parseWebviewMessage(submit([{ ...one, extra: 1 }])), undefined, 'no unexpected keys');
    const tooBig = 'A'.repeat(Math.ceil((ATTACHED_IMAGE_MAX_BYTES + 3) / 3) * 4);
    assert.equal(parseWebviewMessage(submit([{ ...one, data: tooBig }])), undefined, 'over 20 MB raw');
  });

  it('re-probes the bytes: a PNG claimed to be a GIF goes as the PNG it is', async () => {
    const { webview, session, results } = await readyHost();
    webview.send(submit([{ name: 'anim.gif', mediaType: 'image/gif', data: png }]));
    await waitUntil(() => results().length > 0, 'the answer');
    assert.equal(results()[0]!.problem, undefined);
    assert.equal(session.submitted[0]!.images?.[0]?.mediaType, 'image/png');
  });

  it('refuses a text file named .png, valid base64 of garbage and an SVG claimed as PNG, sending nothing', async () => {
    const { webview, session, results } = await readyHost();
    const cases: Array<[string, string, RegExp]> = [
      ['notes.png', Buffer.from('hello, I am text\n').toString('base64'), /not a PNG, JPEG, GIF or WebP image/],
      [
        'noise.png',
        Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)).toString('base64'),
        /not a PNG|could not be decoded/,
      ],
      [
        'logo.png',
        Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString(
          'base64',
        ),
        /SVG: that is text/,
      ],
      // A PNG cut in half: its header is fine, its pixels are not.
      ['cut.png', Buffer.from(png, 'base64').subarray(0, 60).toString('base64'), /could not be decoded|not a PNG/],
    ];
    for (const [index, [name, data]] of cases.entries())
      webview.send(submit([{ name, mediaType: 'image/png', data }], `r${index}`));
    await waitUntil(() => results().length === cases.length, 'every answer');
    for (const [index, [, , reason]] of cases.entries()) {
      const result = results().find((candidate) => candidate.requestId === `r${index}`);
      assert.match(result?.problem ?? '', reason);
    }
    assert.equal(session.submitted.length, 0, 'nothing was sent');
    // The chat still works.
    webview.send(submit([{ name: 'ok.png', mediaType: 'image/png', data: png }], 'after'));
    await waitUntil(() => session.submitted.length === 1, 'the good prompt sent');
  });

  it('cleans a name of control characters and direction overrides; HTML in it stays text', async () => {
    const { webview, session, results } = await readyHost();
    webview.send(
      submit([
        { name: 'evil\u0000\u001b[31m\u202e<img src=x onerror=alert(1)>.png', mediaType: 'image/png', data: png },
      ]),
    );
    await waitUntil(() => results().length > 0, 'the answer');
    const name = session.submitted[0]!.images?.[0]?.name ?? '';
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(name, /[\u0000-\u001f\u202e]/);
    assert.equal(name, 'evil[31m<img src=x onerror=alert(1)>.png');
  });
});
