/**
 * Notices when the prompt cache breaks. A provider caches the start of a request (tools, system
 * prompt, earlier messages) and bills reading it at a tenth of the price; anything that changes
 * that start — another model, an edited system prompt or tool list, a rewritten earlier message —
 * or a pause longer than the cache lives makes the next call pay for all of it again, with no
 * sign in the answer. Each agent's calls are compared with its previous one: a call that reads
 * far less from the cache than the previous one did is a break, with what changed as its reasons.
 */
import type { CacheBreakReason } from '../../events/events';
import type { ModelMessage, TokenUsage, ToolDefinition } from '../../llm/llm-client';
import { isUsableCount } from './context-breakdown';

export const CACHE_BREAK_RULES = {
  /** The previous call read at least this share of its input from the cache… */
  minPreviousShare: 0.5,
  /** …and this call's share fell below this fraction of it… */
  dropFactor: 0.5,
  /** …missing at least this many tokens the previous call left there (no provider caches shorter prompts). */
  minMissedTokens: 1_024,
  /** How long a cache lives after its last use: five minutes at Anthropic, at least that at OpenAI. */
  ttlMs: 5 * 60_000,
} as const;

/** What a call sent, to compare with the next call of the same agent. */
export interface CallShape {
  provider: string;
  model: string;
  system: string;
  tools: readonly ToolDefinition[];
  messages: readonly ModelMessage[];
  startedAt: number;
}

export interface CacheBreak {
  previousShare: number;
  share: number;
  missedTokens: number;
  reasons: CacheBreakReason[];
  secondsSinceLastCall: number;
}

interface SeenCall {
  shape: CallShape;
  /** The first message sent: another one means another conversation on the thread. */
  first: ModelMessage | undefined;
  /**
   * The content arrays of the messages as sent (the history array itself grows afterwards). A
   * changed message gets a new content array (history.ts), so comparing these is enough.
   */
  contents: Array<ModelMessage['content']>;
  usage: TokenUsage;
}

/** Tool definitions as JSON, once per array. */
const toolsJson = new WeakMap<readonly ToolDefinition[], string>();

export class CacheWatch {
  /** Per agent thread (the agent's own calls, its sub-agents'): its last call with reported usage. */
  private readonly threads = new Map<string, SeenCall>();

  /**
   * Records a finished call and says whether it broke the cache. `usage` undefined: the server
   * reported none, so nothing is known and the next call has nothing to be compared with.
   */
  observe(thread: string, shape: CallShape, usage: TokenUsage | undefined): CacheBreak | undefined {
    const current = usable(usage);
    const previous = this.threads.get(thread);
    if (!current || inputOf(current) === 0) {
      this.threads.delete(thread);
      return undefined;
    }
    // Another conversation on this thread (a new sub-agent, a compacted history) starts its own cache.
    const same = previous !== undefined && previous.first === shape.messages[0];
    // One pass over the history, into the previous call's array: it runs after every call.
    const contents = same ? previous.contents : [];
    const rewritten = record(contents, shape.messages);
    this.threads.set(thread, { shape, first: shape.messages[0], contents, usage: current });
    if (!same) return undefined;
    const previousShare = shareOf(previous.usage);
    const share = shareOf(current);
    const missedTokens = Math.max(0, Math.min(cachedAfter(previous.usage), inputOf(current)) - current.cacheReadTokens);
    const broke =
      previousShare >= CACHE_BREAK_RULES.minPreviousShare &&
      share < previousShare * CACHE_BREAK_RULES.dropFactor &&
      missedTokens >= CACHE_BREAK_RULES.minMissedTokens;
    if (!broke) return undefined;
    return {
      previousShare,
      share,
      missedTokens,
      reasons: reasonsFor(previous, shape, rewritten),
      secondsSinceLastCall: Math.max(0, (shape.startedAt - previous.shape.startedAt) / 1000),
    };
  }

  /**
   * Of a call about to be made with `inputTokens`, how many are expected to be read from the
   * cache: what the thread's last call left there, when nothing that empties it has changed.
   */
  expectedCachedTokens(thread: string, shape: CallShape, inputTokens: number): number {
    const previous = this.threads.get(thread);
    if (!previous || previous.first !== shape.messages[0]) return 0;
    // A rewritten message only costs the cache from there on: most of it is still read.
    if (reasonsFor(previous, shape, false).length > 0) return 0;
    return Math.max(0, Math.min(cachedAfter(previous.usage), inputTokens));
  }
}

/** What changed since the previous call; whether earlier messages were rewritten is `record`'s to tell. */
function reasonsFor(previous: SeenCall, shape: CallShape, rewritten: boolean): CacheBreakReason[] {
  const before = previous.shape;
  const reasons: CacheBreakReason[] = [];
  if (before.provider !== shape.provider || before.model !== shape.model) reasons.push('model_switched');
  if (before.system !== shape.system) reasons.push('system_prompt_changed');
  if (before.tools !== shape.tools && jsonOf(before.tools) !== jsonOf(shape.tools)) reasons.push('tools_changed');
  if (rewritten) reasons.push('history_rewritten');
  if (shape.startedAt - before.startedAt > CACHE_BREAK_RULES.ttlMs) reasons.push('cache_expired');
  return reasons;
}

/**
 * Copies the messages' content arrays into `contents` and says whether any it held before were
 * changed. The last one it held is left out: a one-off hint may have been added to it, and the
 * next prompt's text is appended to it.
 */
function record(contents: Array<ModelMessage['content']>, messages: readonly ModelMessage[]): boolean {
  const kept = contents.length - 1;
  let changed = messages.length < kept;
  for (let index = 0; index < messages.length; index++) {
    const content = messages[index]!.content;
    if (index < kept && contents[index] !== content) changed = true;
    contents[index] = content;
  }
  contents.length = messages.length;
  return changed;
}

function jsonOf(tools: readonly ToolDefinition[]): string {
  let json = toolsJson.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools);
    toolsJson.set(tools, json);
  }
  return json;
}

/** All of a call's input: what it paid in full, read from the cache and wrote to it. */
export function inputOf(usage: TokenUsage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

function shareOf(usage: TokenUsage): number {
  const input = inputOf(usage);
  return input > 0 ? Math.min(1, usage.cacheReadTokens / input) : 0;
}

/**
 * What a call left in the cache: what it read and wrote (Anthropic). A provider that reports
 * reads but never writes (OpenAI) caches the whole prompt by itself once it reads any of it.
 */
function cachedAfter(usage: TokenUsage): number {
  if (usage.cacheWriteTokens > 0) return usage.cacheReadTokens + usage.cacheWriteTokens;
  return usage.cacheReadTokens > 0 ? inputOf(usage) : 0;
}

/** The usage when every count is believable (a server can send anything, 1e400 included). */
function usable(usage: TokenUsage | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const counts = [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens];
  if (!counts.every(isUsableCount) || !isUsableCount(inputOf(usage))) return undefined;
  return usage;
}
