/**
 * Benchmarks of the agent runtime, each measured side by side in one run (TESTING.md):
 *  (a) loop overhead: a scripted session of 200+ model turns with tool calls through the full
 *      agent loop, against the raw SDK streaming the very same requests and responses;
 *  (b) event-loop delay p99 while a 400 KB tool argument arrives in 8-character deltas.
 * The fake model server runs in a child process so only the client side is measured here.
 */
import { BudgetGuard } from '../../src/core/policy/budget';
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { z } from 'zod';
import { Conversation } from '../../src/core/agent/conversation';
import { AnthropicClient } from '../../src/core/llm/anthropic/anthropic-client';
import type { LlmClient } from '../../src/core/llm/llm-client';
import { OpenAiClient } from '../../src/core/llm/openai/openai-client';
import { defineTool } from '../../src/core/tools/tool';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { RemoteFakeServer } from './remote-fake-server';

export type Protocol = 'anthropic' | 'openai';
export const MODEL_TURNS = 200;

const FILE_CONTENT = 'export function example() {\n  return 42;\n}\n'.repeat(12);

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  inputSchema: z.object({ path: z.string() }),
  readOnly: true,
  needsApproval: false,
  async execute() {
    return FILE_CONTENT;
  },
});

const writeFile = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  inputSchema: z.object({ path: z.string(), content: z.string() }),
  readOnly: true, // approval is not what is measured here
  needsApproval: false,
  async execute({ content }) {
    return `wrote ${content.length} characters`;
  },
});

function client(protocol: Protocol, server: RemoteFakeServer): LlmClient {
  return protocol === 'anthropic'
    ? new AnthropicClient({ apiKey: 'bench', baseUrl: server.anthropicBaseUrl })
    : new OpenAiClient({ provider: 'vllm', label: 'bench', apiKey: 'bench', baseUrl: server.openAiBaseUrl });
}

function conversation(protocol: Protocol, server: RemoteFakeServer): Conversation {
  return new Conversation({
    id: 'bench',
    model: { llm: client(protocol, server), model: 'fake-model' },
    system: 'You are a benchmark.',
    clock: { now: Date.now },
    tools: [readFile, writeFile],
    limits: { maxTurns: MODEL_TURNS + 10, contextWindow: 10_000_000 },
    retry: { maxRetries: 0 },
    // Budgets set (far away), so every call pays for its estimate and both checks, as a user's would.
    budget: new BudgetGuard({
      policy: () => ({ per_conversation_tokens: 1e12, daily_usd: 1e9, monthly_tokens: 1e12 }),
      now: Date.now,
    }),
  });
}

export function longSessionScenario(): ScenarioInput {
  const turns: ScenarioInput['turns'] = [];
  for (let index = 0; index < MODEL_TURNS; index++) {
    turns.push({
      text: `Step ${index}: reading the next file to understand the module.`,
      toolCalls: [{ name: 'read_file', arguments: { path: `src/module${index}.ts` } }],
    });
  }
  turns.push({ text: 'All files read. The modules each export one example function.' });
  return { name: 'long-session', turns };
}

/** Streams recorded request bodies with the raw SDK, doing the least a consumer must: read every event. */
async function replayRaw(
  protocol: Protocol,
  server: RemoteFakeServer,
  bodies: Array<Record<string, unknown>>,
): Promise<void> {
  if (protocol === 'anthropic') {
    const sdk = new Anthropic({ apiKey: 'bench', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
    for (const body of bodies) {
      const stream = await sdk.messages.create({
        ...(body as unknown as Anthropic.MessageCreateParamsStreaming),
        stream: true,
      });
      for await (const _event of stream) {
        // consume
      }
    }
  } else {
    const sdk = new OpenAI({ apiKey: 'bench', baseURL: server.openAiBaseUrl, maxRetries: 0 });
    for (const body of bodies) {
      const stream = await sdk.chat.completions.create({
        ...(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming),
        stream: true,
      });
      for await (const _chunk of stream) {
        // consume
      }
    }
  }
}

/**
 * One side of benchmark (a), in this process: `runs` sessions through the loop (saving the
 * request bodies it sent) or replays of those bodies through the raw SDK. Returns each time.
 */
export async function timeSessions(
  protocol: Protocol,
  mode: 'loop' | 'raw',
  bodiesFile: string,
  runs: number,
): Promise<number[]> {
  const server = await RemoteFakeServer.start();
  try {
    const scenario = longSessionScenario();
    const bodies =
      mode === 'raw' ? (JSON.parse(readFileSync(bodiesFile, 'utf8')) as Array<Record<string, unknown>>) : [];
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      await server.setScenario(scenario);
      await server.clearRequests();
      const started = performance.now();
      if (mode === 'raw') {
        await replayRaw(protocol, server, bodies);
      } else {
        const agent = conversation(protocol, server);
        let failure: string | undefined;
        agent.subscribe((event) => {
          if (event.type === 'error') failure = event.message;
        });
        await agent.submit('Read every module.');
        if (failure) throw new Error(`the benchmark session failed: ${failure}`);
      }
      times.push(performance.now() - started);
      if (mode === 'loop' && run === 0) writeFileSync(bodiesFile, JSON.stringify(await server.requestBodies()));
    }
    return times;
  } finally {
    server.stop();
  }
}

export interface DelayResult {
  protocol: Protocol;
  deltas: number;
  loopP99Ms: number;
  loopMaxMs: number;
  rawP99Ms: number;
}

/** (b) Event-loop delay while a 400 KB argument streams in 8-character deltas, loop vs raw SDK. */
export async function measureEventLoopDelay(protocol: Protocol): Promise<DelayResult> {
  const server = await RemoteFakeServer.start();
  try {
    const content = 'abcdefghij'.repeat(40 * 1024);
    const scenario: ScenarioInput = {
      name: 'big-argument',
      turns: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'big.txt', content } }], chunkSize: 8 },
        { text: 'Written.' },
      ],
    };
    await server.setScenario(scenario);
    const agent = conversation(protocol, server);
    const loopHistogram = monitorEventLoopDelay({ resolution: 1 });
    loopHistogram.enable();
    await agent.submit('Write the big file.');
    loopHistogram.disable();
    const bodies = (await server.requestBodies()).slice(0, 1);

    await server.setScenario(scenario);
    const rawHistogram = monitorEventLoopDelay({ resolution: 1 });
    rawHistogram.enable();
    await replayRaw(protocol, server, bodies);
    rawHistogram.disable();
    return {
      protocol,
      deltas: Math.ceil(JSON.stringify({ path: 'big.txt', content }).length / 8),
      loopP99Ms: loopHistogram.percentile(99) / 1e6,
      loopMaxMs: loopHistogram.max / 1e6,
      rawP99Ms: rawHistogram.percentile(99) / 1e6,
    };
  } finally {
    server.stop();
  }
}
