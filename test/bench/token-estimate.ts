/**
 * How far OpenAgent's token estimate is from a real server's count: the opening context of a
 * CLI conversation (system prompt, every tool schema, "hello there") and the next request,
 * counted by llama.cpp's own server with a real tokenizer (Qwen2's) and chat template (Qwen2.5's).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ContextMeasure } from '../../src/core/agent/context/context-measure';
import { estimateInputTokens } from '../../src/core/agent/metered-llm';
import type { LlmRequest, ModelMessage } from '../../src/core/llm/llm-client';
import { OpenAiServerInfo } from '../../src/core/llm/openai/server-info';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { loadScenario } from '../fixtures/fake-model-server/scenario';
import { LlamaServer } from '../fixtures/llama-server/llama-server';

const ROOT = path.resolve(__dirname, '..', '..');

export interface EstimateRow {
  request: string;
  method: string;
  estimate: number;
  server: number;
  /** What the product promises for this way of estimating ('' for the old way, shown for comparison). */
  target: string;
}

interface WireBody {
  messages: Array<{ role: string; content: string }>;
  tools: Array<{ function: { name: string; description: string; parameters: Record<string, unknown> } }>;
}

/** The opening request of a CLI conversation, as the CLI sends it (recorded by the fake server). */
async function openingRequest(): Promise<WireBody> {
  const fake = await FakeModelServer.start({ scenario: loadScenario('hello') });
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-ws-'));
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Sample\n');
  try {
    await promisify(execFile)(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      [
        path.join(ROOT, 'src', 'cli', 'main.ts'),
        '--store',
        fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-store-')),
        '--provider',
        'openai-compatible',
        '--base-url',
        fake.openAiBaseUrl,
        '--model',
        'fake-model',
        'hello there',
      ],
      { cwd: workspace, env: { ...process.env, HOME: workspace, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' } },
    );
    return fake.modelCalls[0]!.body as WireBody;
  } finally {
    await fake.close();
  }
}

function asRequest(body: WireBody, messages: ModelMessage[]): LlmRequest {
  return {
    model: 'default',
    system: body.messages[0]!.content,
    messages,
    tools: body.tools.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      inputSchema: tool.function.parameters,
    })),
    maxOutputTokens: 1,
  };
}

/** The server's own count of a request: the prompt tokens it reports for it. */
async function serverCount(server: LlamaServer, body: WireBody, messages: Array<{ role: string; content: string }>) {
  const response = await fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [body.messages[0], ...messages], tools: body.tools, max_tokens: 1 }),
  });
  const answer = (await response.json()) as { usage?: { prompt_tokens: number } };
  if (!answer.usage) throw new Error(`llama-server did not count the request: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.usage.prompt_tokens;
}

export async function measureTokenEstimates(): Promise<EstimateRow[]> {
  const body = await openingRequest();
  const server = await LlamaServer.start({ contextSize: 32_768 });
  try {
    const first: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }];
    const second: ModelMessage[] = [
      ...first,
      { role: 'assistant', content: [{ type: 'text', text: 'Hello! I am the OpenAgent test model.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Now explain what the README says, and list the files in src/ with a line each.' },
        ],
      },
    ];
    // A request whose mix differs from the opening one: a 30,000-character file pasted in.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'omega', 'sigma', 'theta'];
    const file = Array.from({ length: 300 }, (_, line) =>
      Array.from(
        { length: 12 },
        (_, word) => `${words[(line * 7 + word * 3) % 8]}${(line * 31 + word * 17) % 1000}`,
      ).join(' '),
    )
      .join('\n')
      .slice(0, 30_000);
    const third: ModelMessage[] = [
      ...second,
      { role: 'user', content: [{ type: 'text', text: `Here is data.txt:\n${file}` }] },
    ];
    const wire = (messages: ModelMessage[]) =>
      messages.map((message) => ({
        role: message.role,
        content: message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      }));
    const openingServer = await serverCount(server, body, wire(first));
    const secondServer = await serverCount(server, body, wire(second));
    const thirdServer = await serverCount(server, body, wire(third));
    const openingEstimate = estimateInputTokens(asRequest(body, first));
    const secondEstimate = estimateInputTokens(asRequest(body, second));
    const thirdEstimate = estimateInputTokens(asRequest(body, third));

    // As a conversation does it: llama.cpp's tokenizer at the first call…
    const counted = new ContextMeasure(() => undefined);
    await counted.countOnce(
      'llamacpp',
      new OpenAiServerInfo('llamacpp', server.baseUrl),
      asRequest(body, first),
      openingEstimate,
    );
    const client = { provider: 'llamacpp', stream: () => (async function* () {})(), listModels: async () => [] };
    // …and, for servers that cannot count, the usage the first call reported.
    const reported = new ContextMeasure(() => undefined);
    reported.observe('ollama', 'default', openingEstimate, openingServer);
    const row = (request: string, method: string, estimate: number, server: number, target: string): EstimateRow => ({
      request,
      method,
      estimate,
      server,
      target,
    });
    const withFile = 'with a 30,000-character file';
    return [
      row('opening context', 'characters ÷ 4 (before)', openingEstimate, openingServer, ''),
      row(
        'opening context',
        "the server's tokenizer (llama.cpp)",
        counted.scale('llamacpp', 'default', openingEstimate),
        openingServer,
        'within ±5 %',
      ),
      row('second request', 'characters ÷ 4 (before)', secondEstimate, secondServer, ''),
      row(
        'second request',
        "scaled by the first call's reported usage",
        reported.scale('ollama', 'default', secondEstimate),
        secondServer,
        'within ±5 %',
      ),
      row(withFile, 'characters ÷ 4 (before)', thirdEstimate, thirdServer, ''),
      row(
        withFile,
        'scaled by the last reported usage (the mix changed)',
        reported.scale('ollama', 'default', thirdEstimate),
        thirdServer,
        'none: the overflow recovery covers it',
      ),
      row(
        withFile,
        "the server's tokenizer before each call (llama.cpp)",
        await counted.size(
          { llm: { ...client, server: new OpenAiServerInfo('llamacpp', server.baseUrl) }, model: 'default' },
          asRequest(body, third),
          thirdEstimate,
        ),
        thirdServer,
        'within ±5 %',
      ),
    ];
  } finally {
    await server.stop();
  }
}
