/**
 * What the context meter adds to every model call: measuring the request by part, watching the
 * prompt cache and scaling the parts to the server's count, on histories of 100 to 5,000
 * messages that grow by one exchange per call (as the agent loop's do), next to the size
 * estimate every call already made before the meter (budgets, compaction) and the request's
 * conversion to the Anthropic wire format.
 */
import { performance } from 'node:perf_hooks';
import { CacheWatch } from '../../src/core/agent/context/cache-watch';
import { measureRequest, scaleParts } from '../../src/core/agent/context/context-breakdown';
import { estimateInputTokens } from '../../src/core/agent/metered-llm';
import { convertToAnthropicMessages } from '../../src/core/llm/anthropic/convert-to-anthropic-messages';
import type { LlmRequest, ModelMessage, ToolDefinition } from '../../src/core/llm/llm-client';

export interface BreakdownRow {
  messages: number;
  calls: number;
  /** Microseconds per call, medians of the timed rounds. */
  meterMicros: number;
  estimateMicros: number;
  conversionMicros: number;
}

const RULES = `# Project rules\n${'Run the tests before you finish; keep functions small and named for what they do.\n'.repeat(40)}`;
const MEMORY = `# Memory\n${'- The user prefers short answers with file paths.\n'.repeat(30)}`;
const SYSTEM = `${'You are a coding agent working in the user workspace. '.repeat(60)}\n\n${RULES}\n\n${MEMORY}`;
const TOOLS: ToolDefinition[] = Array.from({ length: 30 }, (_, index) => ({
  name: `tool_${index}`,
  description: `Does thing ${index} in the workspace; `.repeat(6),
  inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'A workspace path.' } } },
}));

/** One exchange: the model calls a tool, the tool answers with a file's worth of text. */
function exchange(index: number): ModelMessage[] {
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${index}: reading the next file to check the call sites.` },
        { type: 'tool_call', id: `c${index}`, name: 'tool_1', input: { path: `src/module-${index}.ts` } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolCallId: `c${index}`,
          toolName: 'tool_1',
          output: `export function f${index}() { return ${index}; }\n`.repeat(40),
          isError: false,
        },
      ],
    },
  ];
}

function timeRounds(rounds: number, run: () => void): number {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function measureContextBreakdown(sizes = [100, 1_000, 5_000], calls = 100): BreakdownRow[] {
  const knowledge = [RULES, MEMORY];
  return sizes.map((size) => {
    const history: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'Find every caller of f.' }] }];
    for (let index = 0; history.length < size; index++) history.push(...exchange(index));
    let next = size;
    const watch = new CacheWatch();
    const request = (): LlmRequest => ({
      model: 'm',
      system: SYSTEM,
      messages: history,
      tools: TOOLS,
      maxOutputTokens: 8_192,
    });
    // Each timed call first adds an exchange, as a model turn and its tool results do.
    const grow = () => history.push(...exchange(next++));
    const perCall = (work: (sent: LlmRequest) => void) =>
      (timeRounds(5, () => {
        for (let call = 0; call < calls; call++) {
          grow();
          work(request());
        }
      }) *
        1_000) /
      calls;
    // Warm every cache as the calls before would have.
    estimateInputTokens(request());
    measureRequest(request(), knowledge);
    const estimateMicros = perCall((sent) => estimateInputTokens(sent));
    const meterMicros = perCall((sent) => {
      const parts = measureRequest(sent, knowledge);
      const shape = {
        provider: 'anthropic',
        model: 'm',
        system: sent.system,
        tools: sent.tools,
        messages: sent.messages,
        startedAt: next,
      };
      watch.observe('main', shape, {
        inputTokens: 500,
        outputTokens: 100,
        cacheReadTokens: 20_000,
        cacheWriteTokens: 400,
      });
      scaleParts(parts, 20_900);
    });
    const conversionMicros = perCall((sent) => convertToAnthropicMessages(sent.messages));
    return { messages: size, calls, meterMicros, estimateMicros, conversionMicros };
  });
}
