/**
 * Images through every layer to the fake model server, in both wire formats (issue 36): a
 * prompt's image and read_file of a PNG arrive as image blocks, scaled to the limits (the
 * base64 in the received body is decoded and measured), and a model that sees no images gets
 * a note instead.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { imageSize } from 'image-size';
import { Jimp } from 'jimp';
import { Conversation } from '../../../../src/core/agent/conversation';
import type { AgentEvent } from '../../../../src/core/events/events';
import { AnthropicClient } from '../../../../src/core/llm/anthropic/anthropic-client';
import type { LlmClient } from '../../../../src/core/llm/llm-client';
import { OpenAiClient } from '../../../../src/core/llm/openai/openai-client';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { modelAcceptsImages } from '../../../../src/core/images/image-notes';
import { nodeImageFiles } from '../../../../src/node/images/node-image-files';
import { prepareImage } from '../../../../src/node/images/prepare-image';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';

/** A 4000×3000 PNG: a gradient, so scaling has something to do. */
async function bigPng(width = 4000, height = 3000): Promise<Buffer> {
  const image = new Jimp({ width, height, color: 0x3366ccff });
  for (let x = 0; x < width; x += 97) image.setPixelColor(0xffffffff, x, (x * 3) % height);
  return image.getBuffer('image/png');
}

/** Every image the body carries, decoded from its base64, in either wire format. */
function imagesIn(body: unknown): Array<{ width: number; height: number; type: string; bytes: number }> {
  const found: Array<{ width: number; height: number; type: string; bytes: number }> = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    let base64: string | undefined;
    const source = record.source as { type?: string; data?: string } | undefined;
    if (record.type === 'image' && source?.type === 'base64') base64 = source.data;
    const imageUrl = record.image_url as { url?: string } | undefined;
    if (record.type === 'image_url' && imageUrl?.url?.startsWith('data:')) base64 = imageUrl.url.split(',')[1];
    if (base64) {
      const bytes = Buffer.from(base64, 'base64');
      const size = imageSize(bytes);
      found.push({ width: size.width!, height: size.height!, type: size.type!, bytes: bytes.length });
    }
    Object.values(record).forEach(visit);
  };
  visit(body);
  return found;
}

const wires: Array<{ name: string; vision: string; client(server: FakeModelServer): LlmClient }> = [
  {
    name: 'Anthropic Messages',
    vision: 'claude-sonnet-4-6',
    client: (server) => new AnthropicClient({ apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 0 }),
  },
  {
    name: 'OpenAI Chat Completions',
    vision: 'gpt-4o',
    client: (server) =>
      new OpenAiClient({
        provider: 'ollama',
        label: 'Ollama',
        apiKey: 'x',
        baseUrl: server.openAiBaseUrl,
        maxRetries: 0,
      }),
  },
];

for (const wire of wires) {
  describe(`images on the ${wire.name} wire`, () => {
    let server: FakeModelServer;
    let root: string;
    beforeEach(async () => {
      server = await FakeModelServer.start();
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-images-'));
    });
    afterEach(() => {
      server.close();
      fs.rmSync(root, { recursive: true, force: true });
    });

    function conversation(model: string): { conversation: Conversation; events: AgentEvent[] } {
      const workspace = new NodeWorkspace(root);
      const images = nodeImageFiles(() => ({ model, sees: modelAcceptsImages(model) }));
      const created = new Conversation({
        id: 'c',
        model: { llm: wire.client(server), model },
        retry: { maxRetries: 0 },
        system: 'system',
        clock: { now: () => 1 },
        tools: createFileTools(workspace, images),
      });
      const events: AgentEvent[] = [];
      created.subscribe((event) => events.push(event));
      return { conversation: created, events };
    }

    it('sends a pasted 4000×3000 image scaled to 1568×1176, and says so in the event', async () => {
      server.setScenario({ name: 'look', turns: [{ text: 'A blue picture.' }] });
      const image = await prepareImage(await bigPng(), { name: 'screenshot.png' });
      const { conversation: chat, events } = conversation(wire.vision);
      await chat.submit('What is in this screenshot?', undefined, { images: [image] });
      assert.deepEqual(
        imagesIn(server.modelCalls[0]!.body).map(({ width, height, type }) => ({ width, height, type })),
        [{ width: 1568, height: 1176, type: 'png' }],
      );
      assert.match(JSON.stringify(server.modelCalls[0]!.body), /What is in this screenshot\?/);
      const prompt = events.find((event) => event.type === 'user_message');
      assert.deepEqual(prompt && 'images' in prompt && prompt.images, [
        { sha256: image.sha256, mediaType: 'image/png', width: 1568, height: 1176, name: 'screenshot.png' },
      ]);
      assert.ok(!JSON.stringify(events).includes(image.data.slice(0, 200)), 'no event carries the bytes');
    });

    it('read_file of a PNG returns it as an image the model receives, scaled', async () => {
      fs.writeFileSync(path.join(root, 'ui.png'), await bigPng(3200, 1000));
      server.setScenario({
        name: 'read-image',
        turns: [{ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'ui.png' } }] }, { text: 'Seen.' }],
      });
      const { conversation: chat, events } = conversation(wire.vision);
      await chat.submit('Look at ui.png');
      assert.equal(server.modelCalls.length, 2);
      assert.deepEqual(
        imagesIn(server.modelCalls[1]!.body).map(({ width, height }) => ({ width, height })),
        [{ width: 1568, height: 490 }],
      );
      const result = events.find((event) => event.type === 'tool_result');
      assert.match(result && 'output' in result ? result.output : '', /ui\.png: an image, 1568×490/);
    });

    it('a model that sees no images gets a note in place of the picture, and the tool says why', async () => {
      fs.writeFileSync(path.join(root, 'ui.png'), await bigPng(64, 48));
      server.setScenario({
        name: 'blind',
        turns: [
          { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'ui.png' } }] },
          { text: 'ok' },
          { text: 'ok' },
        ],
      });
      const { conversation: chat, events } = conversation('fake-model');
      const image = await prepareImage(await bigPng(64, 48), { name: 'pasted.png' });
      await chat.submit('Look at ui.png and this', undefined, { images: [image] });
      for (const call of server.modelCalls) assert.deepEqual(imagesIn(call.body), []);
      const body = JSON.stringify(server.modelCalls[0]!.body);
      assert.match(body, /attached the image pasted\.png \(64×48\), but fake-model does not accept images/);
      const result = events.find((event) => event.type === 'tool_result');
      assert.match(result && 'output' in result ? result.output : '', /fake-model does not accept images/);
    });
  });
}
