/**
 * Images in the CLI (issue 36): read_file of a PNG reaches the model as an image with
 * `--images yes` (a local model whose name says nothing about vision), is kept once in the store
 * the CLI writes, and with `--images no` becomes a note the model reads instead.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Jimp } from 'jimp';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../cli/cli-helpers';
import { openStore } from '../store/store-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

/** The data: URLs a Chat Completions body carries. */
function imageUrls(body: unknown): string[] {
  return (JSON.stringify(body).match(/data:image\/png;base64,[A-Za-z0-9+/=]+/g) ?? []).map(String);
}

describe('openagent CLI: images', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let workspace: string;
  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'cli image',
        turns: [
          { text: 'Reading.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'shot.png' } }] },
          { text: 'Blue.' },
        ],
      },
    });
    workspace = tempFolder('ws');
    const picture = new Jimp({ width: 64, height: 32, color: 0x2255aaff });
    fs.writeFileSync(path.join(workspace, 'shot.png'), await picture.getBuffer('image/png'));
  });
  afterEach(() => server.close());

  it('--images yes: the model receives the picture, and the store keeps it once', async () => {
    const store = tempFolder('store');
    const ran = await runCli([...cliArgs(server, store), '--images', 'yes', 'what colour is shot.png?'], {
      cwd: workspace,
    });
    assert.equal(ran.code, 0, ran.stderr);
    const sent = imageUrls(server.modelCalls[1]?.body);
    assert.equal(sent.length, 1, 'the tool result image was sent');
    const { store: opened } = await openStore(store);
    const [conversation] = await opened.listConversations();
    const events = await opened.listMessages(conversation!.id);
    const result = events.find((message) => (message.content as { type?: string }).type === 'tool_result');
    const reference = (result?.content as { images?: Array<{ sha256: string }> }).images?.[0];
    assert.ok(reference, 'the stored result names its image');
    const kept = await opened.images.get(reference.sha256);
    assert.equal(`data:image/png;base64,${kept?.data}`, sent[0]);
    assert.deepEqual((await opened.images.totals()).count, 1);
    await opened.close();
  });

  it('--images no: a note instead of the picture; a bad choice is refused clearly', async () => {
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--images', 'no', 'what colour?'], {
      cwd: workspace,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(imageUrls(server.modelCalls[1]?.body), []);
    assert.match(JSON.stringify(server.modelCalls[1]?.body), /does not accept images/);
    const bad = await runCli([...cliArgs(server, tempFolder('store')), '--images', 'maybe', 'hi'], { cwd: workspace });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--images is auto, yes or no, not "maybe"/);
  });
});
