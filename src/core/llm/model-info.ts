/**
 * What OpenAgent knows about models: context windows and prices (USD per million tokens).
 * Names match by longest prefix, so dated snapshots (claude-sonnet-4-5-20250929) find their
 * family. Local servers cost nothing; an unknown hosted model has no price and says so.
 */
import type { TokenUsage } from './llm-client';
import { isProviderId, PROVIDER_PRESETS } from './provider-presets';

export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

interface ModelFacts {
  contextWindow: number;
  price: ModelPrice;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input * 0.1,
});
const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheWrite: input,
  cacheRead,
});

const MODELS: Record<string, ModelFacts> = {
  'claude-opus-4-5': { contextWindow: 200_000, price: anthropic(5, 25) },
  'claude-opus-4-1': { contextWindow: 200_000, price: anthropic(15, 75) },
  'claude-opus-4': { contextWindow: 200_000, price: anthropic(15, 75) },
  'claude-sonnet-4-6': { contextWindow: 200_000, price: anthropic(3, 15) },
  'claude-sonnet-4-5': { contextWindow: 200_000, price: anthropic(3, 15) },
  'claude-sonnet-4': { contextWindow: 200_000, price: anthropic(3, 15) },
  'claude-3-7-sonnet': { contextWindow: 200_000, price: anthropic(3, 15) },
  'claude-haiku-4-5': { contextWindow: 200_000, price: anthropic(1, 5) },
  'claude-3-5-haiku': { contextWindow: 200_000, price: anthropic(0.8, 4) },
  'gpt-5-nano': { contextWindow: 400_000, price: openai(0.05, 0.4, 0.005) },
  'gpt-5-mini': { contextWindow: 400_000, price: openai(0.25, 2, 0.025) },
  'gpt-5': { contextWindow: 400_000, price: openai(1.25, 10, 0.125) },
  'gpt-4.1-nano': { contextWindow: 1_047_576, price: openai(0.1, 0.4, 0.025) },
  'gpt-4.1-mini': { contextWindow: 1_047_576, price: openai(0.4, 1.6, 0.1) },
  'gpt-4.1': { contextWindow: 1_047_576, price: openai(2, 8, 0.5) },
  'gpt-4o-mini': { contextWindow: 128_000, price: openai(0.15, 0.6, 0.075) },
  'gpt-4o': { contextWindow: 128_000, price: openai(2.5, 10, 1.25) },
  'o4-mini': { contextWindow: 200_000, price: openai(1.1, 4.4, 0.275) },
  'o3-mini': { contextWindow: 200_000, price: openai(1.1, 4.4, 0.55) },
  o3: { contextWindow: 200_000, price: openai(2, 8, 0.5) },
};
const PREFIXES = Object.keys(MODELS).sort((a, b) => b.length - a.length);

/** A conservative window for models we know nothing about (many local models run at 32k). */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

function facts(model: string): ModelFacts | undefined {
  const name = model.toLowerCase().replace(/^(anthropic|openai)\//, '');
  const prefix = PREFIXES.find(
    (candidate) => name === candidate || name.startsWith(`${candidate}-`) || name.startsWith(`${candidate}@`),
  );
  return prefix ? MODELS[prefix] : undefined;
}

export function contextWindowOf(model: string, override?: number): number {
  return override ?? facts(model)?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
}

/** The price of a model, 0 for local providers, undefined when unknown. */
export function priceOf(provider: string, model: string): ModelPrice | undefined {
  if (isProviderId(provider) && PROVIDER_PRESETS[provider].local)
    return { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };
  // The editor's models are paid for through the editor (a Copilot plan), not by the token at
  // list price: no price, so budgets count them in tokens.
  if (isProviderId(provider) && PROVIDER_PRESETS[provider].protocol === 'editor') return undefined;
  return facts(model)?.price;
}

/** Cost in USD. Input tokens exclude cache reads and writes, which are priced on their own. */
export function costOf(price: ModelPrice | undefined, usage: TokenUsage): number {
  if (!price) return 0;
  const perToken = 1 / 1_000_000;
  return (
    usage.inputTokens * price.input * perToken +
    usage.outputTokens * price.output * perToken +
    usage.cacheWriteTokens * price.cacheWrite * perToken +
    usage.cacheReadTokens * price.cacheRead * perToken
  );
}
