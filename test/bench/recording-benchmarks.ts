/**
 * Benchmarks of run recording (issue 34): what recording costs the loop, and what it stores.
 * Sessions run on the fake model server (Anthropic wire) with a real sql.js store in a temp
 * folder on both sides, so the only difference is the recording. Runs alternate — recorded,
 * plain, recorded, plain … — after a warm-up of each, and the medians are compared.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { AgentEvent } from '../../src/core/events/events';
import { redactValue } from '../../src/core/llm/redact';
import { ConversationSession } from '../../src/core/session/conversation-session';
import { defineTool, type AnyTool } from '../../src/core/tools/tool';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { ScenarioTurnInput } from '../fixtures/fake-model-server/scenario';
import { median } from './stats';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');
export const RECORDING_TURNS = 200;
const ROUNDS = 7;
const BIG_FILE = `${'export const line = "fifty kilobytes of source, read again and again";\n'.repeat(700)}`;
const SMALL_FILE = 'export const answer = 42;\n';

const readTool: AnyTool = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  inputSchema: z.object({ path: z.string() }),
  readOnly: true,
  needsApproval: false,
  execute: async ({ path: name }) => (name === 'big.ts' ? BIG_FILE : SMALL_FILE),
});

/** `turns` model calls: every one but the last reads a file (every other one the big file, when `big`). */
function scenario(turns: number, big: boolean) {
  const calls: ScenarioTurnInput[] = Array.from({ length: turns - 1 }, (_unused, index) => ({
    text: `Reading, step ${index}.`,
    toolCalls: [
      { id: `r${index}`, name: 'read_file', arguments: { path: big && index % 2 === 0 ? 'big.ts' : 'small.ts' } },
    ],
  }));
  return { name: 'recording-bench', turns: [...calls, { text: 'Done reading.' }] };
}

async function session(server: FakeModelServer, recording: boolean) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-recording-bench-'));
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  const events: AgentEvent[] = [];
  const conversation = new ConversationSession({
    readSettings: () => ({ provider: 'anthropic', model: 'fake-model', baseUrl: server.anthropicBaseUrl }),
    secrets: { getApiKey: async () => 'sk-ant-bench-0123456789abcdef' },
    clock: { now: () => Date.now() },
    systemPrompt: () => 'You are a benchmark.',
    newId: () => 'bench',
    store: async () => store,
    tools: () => [readTool],
    readLimits: () => ({ maxTurns: 10_000, maxToolOutputChars: 100_000, contextWindow: 10_000_000 }),
    ...(recording ? { recording: { product: 'bench' } } : {}),
  });
  conversation.onEvent((event) => events.push(event));
  return { conversation, events, store, directory };
}

/** One run of `turns` model calls: the loop's time (prompt to `done`) and until all is written. */
async function timedRun(server: FakeModelServer, turns: number, recording: boolean, big = false) {
  server.setScenario(scenario(turns, big));
  const { conversation, events, store, directory } = await session(server, recording);
  const ended = new Promise<void>((resolve) =>
    conversation.onEvent((event) => {
      if (event.type === 'done' || event.type === 'error') resolve();
    }),
  );
  const started = performance.now();
  const cpu = process.cpuUsage();
  await conversation.submit('Read the files.');
  await ended;
  const loopMs = performance.now() - started;
  const loopCpu = process.cpuUsage(cpu);
  await conversation.flush();
  const writtenMs = performance.now() - started;
  const writtenCpu = process.cpuUsage(cpu);
  const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
  if (events.some((event) => event.type === 'error')) throw new Error('The benchmark run failed.');
  return {
    loopMs,
    writtenMs,
    loopCpuMs: cpuMs(loopCpu),
    writtenCpuMs: cpuMs(writtenCpu),
    store,
    directory,
    conversation,
  };
}

export interface RecordingOverhead {
  turns: number;
  rounds: number;
  plainMs: number;
  recordedMs: number;
  ratio: number;
  plainWrittenMs: number;
  recordedWrittenMs: number;
  /** The process's CPU time (user + system) over the loop, and until everything was written. */
  plainCpuMs: number;
  recordedCpuMs: number;
  plainWrittenCpuMs: number;
  recordedWrittenCpuMs: number;
}

export async function measureRecordingOverhead(): Promise<RecordingOverhead> {
  const server = await FakeModelServer.start({});
  const plain: number[] = [];
  const recorded: number[] = [];
  const plainWritten: number[] = [];
  const recordedWritten: number[] = [];
  const cpu = {
    plain: [] as number[],
    recorded: [] as number[],
    plainWritten: [] as number[],
    recordedWritten: [] as number[],
  };
  try {
    for (let round = -1; round < ROUNDS; round++) {
      // Which side goes first alternates too; round -1 warms both up and is not counted.
      for (const recording of round % 2 === 0 ? [true, false] : [false, true]) {
        const run = await timedRun(server, RECORDING_TURNS, recording);
        await run.conversation.dispose();
        await run.store.close();
        fs.rmSync(run.directory, { recursive: true, force: true });
        // The last run's garbage is not left for the next one to collect.
        (globalThis as { gc?: () => void }).gc?.();
        if (round < 0) continue;
        (recording ? recorded : plain).push(run.loopMs);
        (recording ? recordedWritten : plainWritten).push(run.writtenMs);
        (recording ? cpu.recorded : cpu.plain).push(run.loopCpuMs);
        (recording ? cpu.recordedWritten : cpu.plainWritten).push(run.writtenCpuMs);
      }
    }
  } finally {
    await server.close();
  }
  const plainMs = median(plain);
  const recordedMs = median(recorded);
  return {
    turns: RECORDING_TURNS,
    rounds: ROUNDS,
    plainMs,
    recordedMs,
    ratio: recordedMs / plainMs,
    plainWrittenMs: median(plainWritten),
    recordedWrittenMs: median(recordedWritten),
    plainCpuMs: median(cpu.plain),
    recordedCpuMs: median(cpu.recorded),
    plainWrittenCpuMs: median(cpu.plainWritten),
    recordedWrittenCpuMs: median(cpu.recordedWritten),
  };
}

export interface RecordingSize {
  turns: number;
  modelCalls: number;
  /** Bytes of every request as sent (JSON bodies) and every answer (its parts as JSON). */
  callBytes: number;
  /** Bytes the recording keeps: content, steps and manifest. */
  storedBytes: number;
  bigFileBytes: number;
  bigFileReads: number;
  /** Bytes of content holding the big file's text. */
  bigFileStoredBytes: number;
}

/** A 200-turn run reading a 50 KB file 100 times: what the recording keeps against what was sent. */
export async function measureRecordingSize(): Promise<RecordingSize> {
  const server = await FakeModelServer.start({});
  try {
    const run = await timedRun(server, RECORDING_TURNS, true, true);
    const recordings = run.store.recordings;
    const recording = (await recordings.getRecording('bench'))!;
    let answerBytes = 0;
    for (const step of recording.steps)
      if (step.kind === 'model') answerBytes += JSON.stringify(await recordings.getContent(step.answer)).length;
    const requestBytes = server.modelCalls.reduce((sum, call) => sum + JSON.stringify(call.body).length, 0);
    const content = await recordings.contentBytes();
    const stepBytes = recording.steps.reduce((sum, step) => sum + JSON.stringify(step).length, 0);
    const file = await recordings.contentBytes('fifty kilobytes of source');
    const size: RecordingSize = {
      turns: RECORDING_TURNS,
      modelCalls: recording.steps.filter((step) => step.kind === 'model').length,
      callBytes: requestBytes + answerBytes,
      storedBytes: content.bytes + stepBytes + JSON.stringify(recording.manifest).length,
      bigFileBytes: BIG_FILE.length,
      bigFileReads: Math.ceil((RECORDING_TURNS - 1) / 2),
      bigFileStoredBytes: file.bytes,
    };
    await run.conversation.dispose();
    await run.store.close();
    fs.rmSync(run.directory, { recursive: true, force: true });
    return size;
  } finally {
    await server.close();
  }
}
