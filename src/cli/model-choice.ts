/**
 * `/model` in the interactive session: `provider/model`, a provider alone (its default model), or
 * a model of the current provider. A model name with a slash in it (Qwen/Qwen3-8B on vLLM) needs
 * its provider in front: `/model vllm/Qwen/Qwen3-8B`. A provider change goes to that provider's
 * default address; the command-line --base-url belonged to the old one.
 */
import type { ModelSettings } from '../core/llm/create-llm-client';
import { isProviderId, PROVIDER_PRESETS } from '../core/llm/provider-presets';

export type ModelChoice = { ok: true; settings: ModelSettings } | { ok: false; message: string };

export function parseModelChoice(argument: string, current: ModelSettings): ModelChoice {
  const choice = argument.trim();
  const slash = choice.indexOf('/');
  const head = slash < 0 ? choice : choice.slice(0, slash);
  if (slash >= 0 && !isProviderId(head)) {
    return {
      ok: false,
      message:
        `Unknown provider "${head}". Choose one of: ${Object.keys(PROVIDER_PRESETS).join(', ')} ` +
        '(e.g. /model ollama/qwen3, or /model gpt-4.1 for a model of the current provider).',
    };
  }
  if (slash < 0 && !isProviderId(choice)) return { ok: true, settings: { ...current, model: choice } };
  const provider = head;
  const model = slash < 0 ? '' : choice.slice(slash + 1).trim();
  const baseUrl = provider === current.provider.trim() ? current.baseUrl : '';
  return { ok: true, settings: { provider, model, baseUrl } };
}

/** "provider/model at address", the defaults filled in. */
export function describeModel(settings: ModelSettings): string {
  const provider = settings.provider.trim();
  const preset = isProviderId(provider) ? PROVIDER_PRESETS[provider] : undefined;
  const model = settings.model.trim() || preset?.defaultModel || '(default)';
  const address = settings.baseUrl.trim() || preset?.defaultBaseUrl;
  return `${provider}/${model}${address ? ` at ${address}` : ''}`;
}
