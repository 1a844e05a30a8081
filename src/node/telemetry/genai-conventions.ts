/**
 * The OpenTelemetry GenAI semantic conventions OpenAgent follows, as plain names and small pure
 * helpers (no OpenTelemetry import: this file is loaded even when nothing is exported). The
 * names are spelled out here rather than taken from @opentelemetry/semantic-conventions: the
 * package marks its gen_ai.* constants deprecated (they moved to the GenAI conventions
 * repository) and its "incubating" entry point would pull thousands of constants into the bundle.
 */
import { redactText, redactValue, type KnownSecrets } from '../../core/llm/redact';
import { isProviderId, PROVIDER_PRESETS } from '../../core/llm/provider-presets';

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The older name of gen_ai.provider.name; still what many backends group by. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  conversationId: 'gen_ai.conversation.id',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  /** Opt-in in the conventions ("may contain sensitive information"): sent redacted. */
  toolCallArguments: 'gen_ai.tool.call.arguments',
  tokenType: 'gen_ai.token.type',
} as const;

export const ERROR_TYPE = 'error.type';
export const SERVER_ADDRESS = 'server.address';
export const SERVER_PORT = 'server.port';

/** OpenAgent's own attributes, beside the conventions'. */
export const OPENAGENT = {
  work: 'openagent.work',
  costUsd: 'openagent.cost_usd',
  usageReported: 'openagent.usage.reported',
  approval: 'openagent.approval.decision',
  approvalSource: 'openagent.approval.source',
  /** The named approver who decided (team approvals). */
  approvalBy: 'openagent.approval.by',
  approvalRequest: 'openagent.approval.request_id',
  approvalApprovers: 'openagent.approval.approvers',
  /** What the reviewer program (approvals.reviewer) answered, and why. */
  reviewerDecision: 'openagent.reviewer.decision',
  reviewerReason: 'openagent.reviewer.reason',
  turnOutcome: 'openagent.turn.outcome',
} as const;

export const OPERATION = { chat: 'chat', executeTool: 'execute_tool', invokeAgent: 'invoke_agent' } as const;

/** The agent's name in gen_ai.agent.name and in invoke_agent span names. */
export const AGENT_NAME = 'OpenAgent';

/** Bucket boundaries the conventions give for gen_ai.client.token.usage. */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** Bucket boundaries (seconds) the conventions give for gen_ai.client.operation.duration. */
export const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** Tool arguments beyond this are cut (after redaction, so a cut never leaves half a key behind). */
export const MAX_ARGUMENTS_CHARS = 4_096;

/**
 * gen_ai.provider.name for an OpenAgent provider id. "anthropic" and "openai" are well-known
 * values; a local or other OpenAI-compatible server keeps its own id (the conventions allow
 * custom values, and calling Ollama "openai" would mislead a dashboard).
 */
export function genAiProviderName(provider: string | undefined): string {
  return provider && provider.length > 0 ? provider : 'openai-compatible';
}

/** server.address and server.port of a base URL; undefined when there is none or it does not parse. */
export function serverOf(baseUrl: string | undefined): { address: string; port: number } | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return url.hostname ? { address: url.hostname.replace(/^\[|\]$/g, ''), port } : undefined;
  } catch {
    return undefined;
  }
}

/** Where the hosted providers answer when no base URL is set (their SDKs' defaults). */
const HOSTED_DEFAULTS: Record<string, string> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
};

/**
 * The base URL a provider's calls go to: the one in the settings for the settings' provider, a
 * model route's address for the others, else the provider's default address.
 */
export function providerBaseUrl(
  provider: string,
  settings: { provider: string; baseUrl?: string },
  routeBaseUrls: Record<string, string>,
): string | undefined {
  if (provider === settings.provider && settings.baseUrl) return settings.baseUrl;
  if (routeBaseUrls[provider]) return routeBaseUrls[provider];
  if (isProviderId(provider)) return PROVIDER_PRESETS[provider].defaultBaseUrl ?? HOSTED_DEFAULTS[provider];
  return undefined;
}

/**
 * A tool call's arguments as gen_ai.tool.call.arguments: the audit trail's redaction (known
 * secrets, key shapes, secret-named fields and assignments) on the structure and again on the
 * JSON text, then cut to a size a backend accepts.
 */
export function toolArgumentsAttribute(input: unknown, secrets: KnownSecrets): string {
  let text: string;
  try {
    text = JSON.stringify(redactValue(input, secrets)) ?? 'null';
  } catch {
    text = String(input);
  }
  text = redactText(text, secrets);
  return text.length > MAX_ARGUMENTS_CHARS ? `${text.slice(0, MAX_ARGUMENTS_CHARS)}…` : text;
}
