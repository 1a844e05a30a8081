/**
 * Sends one prompt through the session and waits until the agent is done with it — answered,
 * failed or stopped — and with every message queued meanwhile that went out after it (each is
 * announced through `onQueuedSent`). The session says when a run has ended and whether a queued
 * message follows; how it ended is the lead agent's last event: `done`, `error`, or
 * `interrupted` without feedback (with feedback the run goes on).
 */
import type { ConversationSession, SubmitProblem } from '../core/session/conversation-session';
import type { AgentEvent } from '../core/events/events';
import type { QueuedPrompt } from '../core/session/prompt-queue';
import type { MentionResolver } from '../core/session/mentions';
import { PROVIDER_PRESETS, isProviderId } from '../core/llm/provider-presets';

export type RunOutcome =
  | { kind: 'done'; stopReason: string }
  | { kind: 'error'; message: string }
  | { kind: 'interrupted'; beforeRun?: boolean }
  | { kind: 'setup'; problem: SubmitProblem };

/** Runs while the agent works; `stop` ends the run (Ctrl+C). */
export type During = <T>(work: Promise<T>, stop: () => void) => Promise<T>;

export async function runPrompt(
  session: ConversationSession,
  prompt: string,
  during: During = (work) => work,
  onQueuedSent?: (prompt: QueuedPrompt) => void,
  resolve?: MentionResolver,
): Promise<RunOutcome> {
  const submit = () => (resolve ? session.submitWithMentions(prompt, resolve) : session.submit(prompt));
  return runUntilIdle(session, submit, during, onQueuedSent);
}

/**
 * Starts work with `begin` (a prompt, or resuming the queue; undefined means nothing started)
 * and waits until the session has nothing left to send.
 */
export async function runUntilIdle(
  session: ConversationSession,
  begin: () => Promise<SubmitProblem | undefined | 'nothing'>,
  during: During = (work) => work,
  onQueuedSent?: (prompt: QueuedPrompt) => void,
): Promise<RunOutcome> {
  let stopRequested = false;
  const unsubscribe: Array<() => void> = [];
  const ended = new Promise<RunOutcome>((resolve) => {
    let last: RunOutcome | undefined;
    unsubscribe.push(
      session.onEvent((event) => {
        last = runEnd(event) ?? last;
      }),
      session.queue.onRunEnd((end) => {
        if (end.next) return onQueuedSent?.(end.next);
        // The session's word on how it ended; the last event's for the details.
        if (end.outcome === 'stopped') return resolve({ kind: 'interrupted' });
        if (end.outcome === 'done')
          return resolve(last?.kind === 'done' ? last : { kind: 'done', stopReason: 'end_turn' });
        const reason = session.queue.state.held?.reason ?? 'The queued message could not be sent.';
        resolve(last?.kind === 'error' ? last : { kind: 'error', message: reason });
      }),
    );
  });
  const stop = () => {
    stopRequested = true;
    session.stop();
  };
  try {
    return await during(
      (async (): Promise<RunOutcome> => {
        const problem = await begin();
        if (problem === 'nothing') return { kind: 'done', stopReason: 'nothing_queued' };
        // Ctrl+C while the run was being set up (the policy, the team database, MCP servers):
        // it never began, so no event says it was interrupted; the outcome does.
        if (problem?.reason === 'stopped') return { kind: 'interrupted', beforeRun: true };
        if (problem) return { kind: 'setup', problem };
        // Ctrl+C while the conversation was being set up: the run has just started, stop it now.
        if (stopRequested) session.stop();
        return ended;
      })(),
      stop,
    );
  } finally {
    for (const stopListening of unsubscribe) stopListening();
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
export function setupMessage(problem: SubmitProblem, provider: string): string {
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
