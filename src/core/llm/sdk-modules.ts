/**
 * The vendor SDKs, loaded when the first client of theirs is made (issue 23): together they are
 * over half a megabyte of code that opening the editor never needs. Checks that recognise the
 * SDKs' error classes look only at an SDK already loaded: before that, none of its errors exist.
 */
import { lazyModule } from '../lazy-module';
import { isProviderId, PROVIDER_PRESETS } from './provider-presets';
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import type * as OpenAiSdk from 'openai';

export const anthropicSdk = lazyModule(() => require('@anthropic-ai/sdk') as typeof AnthropicSdk);
export const openAiSdk = lazyModule(() => require('openai') as typeof OpenAiSdk);

/**
 * Whether `error` is an instance of that error class of either SDK. Only a loaded SDK can have
 * made one, so an SDK not loaded yet is not loaded for the question.
 */
export function isSdkError(
  error: unknown,
  name: 'APIConnectionError' | 'APIConnectionTimeoutError' | 'APIUserAbortError',
): boolean {
  return [openAiSdk.loaded, anthropicSdk.loaded].some((sdk) => sdk !== undefined && error instanceof sdk[name]);
}

/** Loads the SDK `provider`'s clients use, ahead of the first one (while the user writes a prompt). */
export function loadSdkOf(provider: string): void {
  if (!isProviderId(provider)) return;
  const protocol = PROVIDER_PRESETS[provider].protocol;
  if (protocol === 'anthropic') anthropicSdk();
  else if (protocol === 'openai') openAiSdk();
}
