/**
 * The replay model client: an LlmClient that answers the k-th model call of each agent with the
 * recording's k-th model step of that agent — the recorded parts streamed as they came (text
 * deltas as recorded), a recorded failure thrown again with the same kind and status so the real
 * retry logic runs. It never invents an answer: a call the recording does not have, a call for
 * another kind of work, or a request that differs from the one recorded is a divergence, and
 * the replay ends there.
 */
import { abortError, onAbort } from '../abort';
import { LlmError, type LlmClient, type LlmRequest, type LlmStreamPart } from '../llm/llm-client';
import { canonicalJson, preview } from './divergence';
import type { ModelStep } from './recording';
import type { ReplayState } from './replay-state';

const LLM_ERROR_KINDS = new Set<string>([
  'authentication',
  'connection',
  'rate_limit',
  'server',
  'bad_request',
  'stream',
  'context_overflow',
]);

export interface ReplayClientOptions {
  /** The kind of work the conversation uses this client for (chat, compaction, final_summary, subagent). */
  work: string;
  provider: string;
  /** Compare each request with the recorded one (default true). */
  checkRequests?: boolean;
  /** A teammate's client answers for that agent only; otherwise the agent working now. */
  agentId?: string;
}

export function replayModelClient(state: ReplayState, options: ReplayClientOptions): LlmClient {
  const hashes = new WeakMap<object, string>();
  return {
    provider: options.provider,
    listModels: () => Promise.resolve([...new Set(state.loaded.recording.manifest.models.map((entry) => entry.model))]),
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      const agentId = options.agentId ?? state.currentAgent();
      const step = answerable(state, agentId, options.work, request, options.checkRequests !== false, hashes);
      if (!step) return stopped(request.signal);
      for (const part of state.loaded.answer(step)) {
        if (request.signal?.aborted) throw abortError();
        yield part;
      }
      const interrupt = state.interruptDuring(step.step);
      if (interrupt) {
        state.triggerInterrupt(interrupt);
        return stopped(request.signal);
      }
      if (step.error) throw recordedError(step.error);
    },
  };
}

/** The recorded step that answers this call, or undefined when the replay ends here. */
function answerable(
  state: ReplayState,
  agentId: string,
  work: string,
  request: LlmRequest,
  checkRequests: boolean,
  hashes: WeakMap<object, string>,
): ModelStep | undefined {
  if (state.ended) return undefined;
  const { step, made } = state.takeModelStep(agentId);
  if (!step) {
    state.pastTheEnd({
      step: state.currentStep,
      agentId,
      what: 'the run asked for a model call the recording does not have',
      expected: `no more model calls from ${agentId} (it made ${made})`,
      actual: `model call ${made + 1} of ${agentId} (${work}) with ${request.messages.length} messages`,
    });
    return undefined;
  }
  if (!state.reach(step)) return undefined;
  if (step.work !== work) {
    state.diverge({
      step: step.step,
      agentId,
      what: 'the run asked for another kind of model call',
      expected: `a ${step.work} call`,
      actual: `a ${work} call`,
    });
    return undefined;
  }
  const difference = checkRequests ? requestDifference(state.loaded.request(step), request, hashes) : undefined;
  if (difference) {
    state.diverge({ step: step.step, agentId, ...difference, what: `the model request differs: ${difference.what}` });
    return undefined;
  }
  return step;
}

async function stopped(signal: AbortSignal | undefined): Promise<never> {
  // The replay stopped the run (state.end): wait for the Stop to land, then end as a cancelled call.
  await new Promise<void>((resolve) => onAbort(signal, resolve));
  throw abortError();
}

/** The recorded failure, as the adapter threw it: the retry logic and the run's error handling see the same. */
function recordedError(error: NonNullable<ModelStep['error']>): Error {
  if (error.kind && LLM_ERROR_KINDS.has(error.kind))
    return new LlmError(error.message, error.kind as LlmError['kind'], error.status);
  return new Error(error.message);
}

interface RequestDifference {
  what: string;
  expected: string;
  actual: string;
}

/** The first way `actual` differs from the recorded request, or undefined when they are the same. */
export function requestDifference(
  recorded: Omit<LlmRequest, 'signal' | 'onSilence'>,
  actual: LlmRequest,
  hashes: WeakMap<object, string> = new WeakMap(),
): RequestDifference | undefined {
  if (recorded.system !== actual.system)
    return { what: 'the system prompt', ...textDifference(recorded.system, actual.system) };
  const recordedTools = recorded.tools.map((tool) => tool.name);
  const actualTools = actual.tools.map((tool) => tool.name);
  if (recordedTools.join('\n') !== actualTools.join('\n'))
    return { what: 'the tools offered', expected: preview(recordedTools), actual: preview(actualTools) };
  for (const [index, tool] of recorded.tools.entries()) {
    if (hashOf(tool, hashes) !== hashOf(actual.tools[index]!, hashes))
      return {
        what: `the definition of tool ${tool.name}`,
        expected: preview(tool),
        actual: preview(actual.tools[index]),
      };
  }
  if ((recorded.toolChoice ?? 'auto') !== (actual.toolChoice ?? 'auto'))
    return {
      what: 'the tool choice',
      expected: recorded.toolChoice ?? 'auto',
      actual: actual.toolChoice ?? 'auto',
    };
  if (recorded.maxOutputTokens !== undefined && recorded.maxOutputTokens !== actual.maxOutputTokens)
    return {
      what: 'the answer limit',
      expected: `${recorded.maxOutputTokens} tokens`,
      actual: `${actual.maxOutputTokens} tokens`,
    };
  const count = Math.max(recorded.messages.length, actual.messages.length);
  for (let index = 0; index < count; index++) {
    const expected = recorded.messages[index];
    const got = actual.messages[index];
    if (
      expected &&
      got &&
      hashOf(expected.content, hashes) === hashOf(got.content, hashes) &&
      expected.role === got.role
    )
      continue;
    return {
      what: `message ${index + 1} of ${count}${describeMessage(expected ?? got)}`,
      expected: expected ? preview(expected) : '(no such message)',
      actual: got ? preview(got) : '(no such message)',
    };
  }
  return undefined;
}

/** Canonical JSON, cached per array or object: the history's messages are new arrays whenever they change. */
function hashOf(value: object, hashes: WeakMap<object, string>): string {
  let hash = hashes.get(value);
  if (hash === undefined) hashes.set(value, (hash = canonicalJson(value)));
  return hash;
}

function describeMessage(message: LlmRequest['messages'][number] | undefined): string {
  const result = message?.content.find((part) => part.type === 'tool_result');
  if (result && result.type === 'tool_result') return ` (the result of ${result.toolName} call ${result.toolCallId})`;
  return message ? ` (${message.role})` : '';
}

/** Where two texts part, shown around that point. */
function textDifference(expected: string, actual: string): { expected: string; actual: string } {
  let index = 0;
  while (index < expected.length && index < actual.length && expected[index] === actual[index]) index++;
  const from = Math.max(0, index - 40);
  const around = (text: string) => `${from > 0 ? '…' : ''}${text.slice(from, index + 80)}`;
  return { expected: preview(around(expected)), actual: preview(around(actual)) };
}
