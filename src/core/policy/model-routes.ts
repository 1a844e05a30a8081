/**
 * Model policy (SPEC 2.3, 4.3): which model serves which kind of work. A route for the kind
 * wins, then the policy's default, then the user's model settings. A route names
 * "provider/model"; its server is the one the settings give for that provider (the user's base
 * URL when it is the provider in use, else the provider's address from `openagent.providerBaseUrls`,
 * else the provider's default).
 */
import type { ModelSettings } from '../llm/create-llm-client';
import type { AgentPolicy, WORK_KINDS } from './agent-policy';

export type WorkKind = (typeof WORK_KINDS)[number];
export type ModelPolicy = NonNullable<AgentPolicy['model_policy']>;

export interface RoutedModel {
  settings: ModelSettings;
  /** Why this model: the user's settings, the policy's default or a route for the kind. */
  source: 'settings' | 'policy_default' | 'policy_route';
}

export function routeModel(
  kind: WorkKind,
  settings: ModelSettings,
  policy: ModelPolicy | undefined,
  providerBaseUrls: Readonly<Record<string, string>> = {},
): RoutedModel {
  const route = policy?.routes?.find((candidate) => candidate.match.task === kind);
  const reference = route?.model ?? policy?.default;
  if (!reference) return { settings, source: 'settings' };
  const slash = reference.indexOf('/');
  const provider = reference.slice(0, slash);
  const model = reference.slice(slash + 1);
  const baseUrl = provider === settings.provider.trim() ? settings.baseUrl : (providerBaseUrls[provider] ?? '');
  return { settings: { provider, model, baseUrl }, source: route ? 'policy_route' : 'policy_default' };
}
