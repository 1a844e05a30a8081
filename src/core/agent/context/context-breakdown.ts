/**
 * Where a request's input tokens go: the instructions and tool definitions, the project's rules
 * and memory, the conversation, and tool results. Measured from the request actually sent, by
 * the product's token estimate, then scaled to the server's count once it reports one, so the
 * parts add up to the real input exactly (in whole tokens).
 */
import type { LlmRequest } from '../../llm/llm-client';
import { tokensForChars } from '../../llm/token-estimate';
import { historyChars, toolDefinitionChars } from './request-size';

export interface ContextParts {
  systemAndTools: number;
  rulesAndMemory: number;
  conversation: number;
  toolResults: number;
}

/** The parts in the order surfaces show them. */
export const CONTEXT_PART_NAMES = ['systemAndTools', 'rulesAndMemory', 'conversation', 'toolResults'] as const;

export function sumParts(parts: ContextParts): number {
  return parts.systemAndTools + parts.rulesAndMemory + parts.conversation + parts.toolResults;
}

/** Per set of knowledge sections (one per conversation), the last system prompt measured with it. */
const measuredSystems = new WeakMap<readonly string[], { system: string; chars: number }>();

/**
 * The request's parts in estimated tokens. `knowledge` is the rules and memory sections the
 * system prompt was built with: the characters of those found in the request's system prompt
 * count as rules and memory, the rest of it as instructions.
 */
export function measureRequest(request: LlmRequest, knowledge: readonly string[]): ContextParts {
  const knowledgeChars = knowledgeCharsIn(request.system, knowledge);
  const { conversation, toolResults } = historyChars(request.messages);
  const givenLater = Math.min(conversation, knowledgeCharsInMessages(request, knowledge));
  return {
    systemAndTools: tokensForChars(request.system.length - knowledgeChars + toolDefinitionChars(request.tools)),
    rulesAndMemory: tokensForChars(knowledgeChars + givenLater),
    conversation: tokensForChars(conversation - givenLater),
    toolResults: tokensForChars(toolResults),
  };
}

function knowledgeCharsIn(system: string, knowledge: readonly string[]): number {
  // The same prompt goes out with every call of a conversation: searched for once.
  const measured = measuredSystems.get(knowledge);
  if (measured?.system === system) return measured.chars;
  let chars = 0;
  for (const section of knowledge) {
    const text = section.trim();
    if (text && system.includes(text)) chars += text.length;
  }
  chars = Math.min(chars, system.length);
  measuredSystems.set(knowledge, { system, chars });
  return chars;
}

/**
 * Knowledge given as messages after the system prompt (instructions for files in play,
 * scoped-instructions.ts): the characters of those sections found in the user messages' text.
 */
function knowledgeCharsInMessages(request: LlmRequest, knowledge: readonly string[]): number {
  const later = knowledge.map((section) => section.trim()).filter((text) => text && !request.system.includes(text));
  if (later.length === 0) return 0;
  let chars = 0;
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    for (const part of message.content)
      if (part.type === 'text') for (const text of later) if (part.text.includes(text)) chars += text.length;
  }
  return chars;
}

/**
 * The parts scaled to `total` tokens, in whole tokens that add up to it exactly (largest
 * remainders get the leftover tokens). Parts that are all zero put the total on the
 * instructions: the server counted framing the estimate cannot see. A total that is not a
 * usable count (negative, not finite, beyond exact integers) leaves the parts as they are.
 */
export function scaleParts(parts: ContextParts, total: number): ContextParts {
  if (!isUsableCount(total)) return parts;
  const target = Math.round(total);
  const estimated = sumParts(parts);
  if (estimated <= 0) return { systemAndTools: target, rulesAndMemory: 0, conversation: 0, toolResults: 0 };
  const shares = CONTEXT_PART_NAMES.map((name) => {
    const exact = (parts[name] * target) / estimated;
    return { name, whole: Math.floor(exact), fraction: exact - Math.floor(exact) };
  });
  let left = target - shares.reduce((sum, share) => sum + share.whole, 0);
  for (const share of [...shares].sort((a, b) => b.fraction - a.fraction)) {
    if (left < 1) break;
    share.whole++;
    left--;
  }
  const scaled = Object.fromEntries(shares.map((share) => [share.name, share.whole])) as unknown as ContextParts;
  // Rounding in huge numbers can leave a token or two over or under: the largest part takes it.
  const drift = target - sumParts(scaled);
  if (drift !== 0) {
    const largest = CONTEXT_PART_NAMES.reduce((best, name) => (scaled[name] > scaled[best] ? name : best));
    scaled[largest] = Math.max(0, scaled[largest] + drift);
  }
  return scaled;
}

/** A token count worth believing: a whole, finite, non-negative number JavaScript holds exactly. */
export function isUsableCount(value: number): boolean {
  return Number.isFinite(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
}
