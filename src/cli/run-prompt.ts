/**
 * Sends one prompt through the session and waits until its run has ended — answered, failed or
 * stopped. The session only says a run has started; its end is the lead agent's last event:
 * `done`, `error`, or `interrupted` without feedback (with feedback the run goes on).
 */
import type { ConversationSession, SetupProblem } from '../core/session/conversation-session';
import type { AgentEvent } from '../core/events/events';
import { PROVIDER_PRESETS, isProviderId } from '../core/llm/provider-presets';

export type RunOutcome =
  | { kind: 'done'; stopReason: string }
  | { kind: 'error'; message: string }
  | { kind: 'interrupted' }
  | { kind: 'setup'; problem: SetupProblem };

export async function runPrompt(
  session: ConversationSession,
  prompt: string,
  /** Runs while the prompt is answered; `stop` ends the run (Ctrl+C). */
  during: <T>(work: Promise<T>, stop: () => void) => Promise<T> = (work) => work,
): Promise<RunOutcome> {
  let stopRequested = false;
  let unsubscribe: () => void = () => undefined;
  const ended = new Promise<RunOutcome>((resolve) => {
    unsubscribe = session.onEvent((event) => {
      const outcome = runEnd(event);
      if (outcome) resolve(outcome);
    });
  });
  const stop = () => {
    stopRequested = true;
    session.stop();
  };
  try {
    return await during(
      (async (): Promise<RunOutcome> => {
        const problem = await session.submit(prompt);
        if (problem) return { kind: 'setup', problem };
        // Ctrl+C while the conversation was being set up: the run has just started, stop it now.
        if (stopRequested) session.stop();
        return ended;
      })(),
      stop,
    );
  } finally {
    unsubscribe();
  }
}

function runEnd(event: AgentEvent): RunOutcome | undefined {
  if (event.agentId !== 'lead') return undefined;
  if (event.type === 'done') return { kind: 'done', stopReason: event.stopReason };
  if (event.type === 'error') return { kind: 'error', message: event.message };
  if (event.type === 'interrupted' && !event.feedback) return { kind: 'interrupted' };
  return undefined;
}

/** A setup problem in the CLI's words: flags, slash commands and environment variables. */
export function setupMessage(problem: SetupProblem, provider: string): string {
  const preset = isProviderId(provider.trim())
    ? PROVIDER_PRESETS[provider.trim() as keyof typeof PROVIDER_PRESETS]
    : undefined;
  if (problem.reason === 'missing_api_key' && preset) {
    const variable = preset.apiKeyEnvVar ? `${preset.apiKeyEnvVar} (or OPENAGENT_API_KEY)` : 'OPENAGENT_API_KEY';
    return (
      `No ${preset.label} API key: set ${variable} in the environment, ` +
      'or use a local model (--provider ollama, or /model ollama/<model> in the interactive session).'
    );
  }
  if (problem.reason === 'missing_base_url')
    return `The ${preset?.label ?? provider} provider needs a server address: start openagent with --base-url <url> (or set OPENAGENT_BASE_URL), e.g. http://localhost:8080/v1.`;
  return problem.message;
}
