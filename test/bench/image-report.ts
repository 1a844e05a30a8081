/**
 * Images (issue 36), printed by `npm run bench`: a 4000×3000 screenshot pasted — from its bytes to
 * the request being sent to the fake model server (probe, decode, scale, encode, convert), and
 * the bytes the request carried — in both wire formats.
 */
import { Jimp } from 'jimp';
import { table } from './bench-table';
import { Conversation } from '../../src/core/agent/conversation';
import { AnthropicClient } from '../../src/core/llm/anthropic/anthropic-client';
import { OpenAiClient } from '../../src/core/llm/openai/openai-client';
import type { LlmClient } from '../../src/core/llm/llm-client';
import { prepareImage } from '../../src/node/images/prepare-image';
import { FakeModelServer } from '../fixtures/fake-model-server/server';

async function screenshot(): Promise<{ bytes: Buffer; kind: string }> {
  const image = new Jimp({ width: 4000, height: 3000, color: 0xf4f4f4ff });
  // Bands of text-like stripes, as a screenshot of an editor has.
  for (let y = 40; y < 3000; y += 24)
    for (let x = 60; x < 60 + ((y * 7) % 3200); x++) image.setPixelColor(0x333333ff, x, y);
  // And a photograph in its lower half (noise: what compresses worst), so the paste weighs what a real one does.
  const data = image.bitmap.data;
  let seed = 7;
  for (let offset = data.length / 2; offset < data.length; offset += 4) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    data[offset] = seed & 0xff;
    data[offset + 1] = (seed >>> 8) & 0xff;
    data[offset + 2] = (seed >>> 16) & 0xff;
  }
  return { bytes: await image.getBuffer('image/png'), kind: 'PNG' };
}

export async function printImageBenchmarks(): Promise<void> {
  console.log(
    '\nImages: a 4000×3000 PNG screenshot pasted, to the request being sent (scaled to 1568 px, re-encoded)\n',
  );
  const { bytes } = await screenshot();
  const server = await FakeModelServer.start();
  const rows: string[][] = [];
  try {
    const wires: Array<[string, string, LlmClient]> = [
      [
        'Anthropic',
        'claude-sonnet-4-6',
        new AnthropicClient({ apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 0 }),
      ],
      [
        'OpenAI',
        'gpt-4o',
        new OpenAiClient({
          provider: 'ollama',
          label: 'Ollama',
          apiKey: 'x',
          baseUrl: server.openAiBaseUrl,
          maxRetries: 0,
        }),
      ],
    ];
    for (const [name, model, llm] of wires) {
      server.setScenario({ name: 'bench', turns: [{ text: 'ok' }] });
      const conversation = new Conversation({
        id: 'bench',
        model: { llm, model },
        retry: { maxRetries: 0 },
        system: 's',
        clock: { now: Date.now },
      });
      const started = performance.now();
      const image = await prepareImage(bytes, { name: 'screenshot.png' });
      const prepared = performance.now();
      let sentAt = 0;
      const before = server.modelCalls.length;
      const finished = conversation.submit('What is wrong here?', undefined, { images: [image] });
      while (server.modelCalls.length === before) await new Promise((resolve) => setImmediate(resolve));
      sentAt = performance.now();
      await finished;
      const body = JSON.stringify(server.modelCalls.at(-1)!.body);
      rows.push([
        name,
        `${(bytes.length / 1_048_576).toFixed(2)} MB`,
        (prepared - started).toFixed(0),
        (sentAt - started).toFixed(0),
        `${image.width}×${image.height} ${image.mediaType}`,
        `${(Buffer.byteLength(body) / 1024).toFixed(0)} KB`,
        `${((Buffer.byteLength(body) / bytes.length) * 100).toFixed(0)}%`,
      ]);
    }
  } finally {
    server.close();
  }
  console.log(
    table(
      ['wire', 'pasted', 'prepare (ms)', 'to request received (ms)', 'sent as', 'request body', 'of the paste'],
      rows,
    ),
  );
}
