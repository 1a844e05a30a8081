/**
 * The UserPromptSubmit hooks' word on a prompt, waited on only until Stop. Stopped, the prompt
 * is not recorded (no hook passed it) and the run ends as interrupted; redirected, the user's
 * words are the prompt and go through the hooks in its place.
 */
import type { Hooks, PromptDecision } from './hooks';

export interface PromptVetting {
  hooks: Hooks;
  conversationId: string;
  /** Says the run was interrupted and returns the user's redirecting words ('' for a Stop). */
  interrupted(): string;
  /** A redirect goes on under a new controller: the run's Stop now aborts this one. */
  restarted(controller: AbortController): void;
}

/** The hooks' decision and the controller the run goes on with; undefined when the run ended. */
export async function vetPrompt(
  prompt: string,
  first: AbortController,
  vetting: PromptVetting,
): Promise<{ decision: PromptDecision | undefined; controller: AbortController } | undefined> {
  let controller = first;
  let text = prompt;
  let started: string | undefined;
  for (;;) {
    try {
      // The session's start hooks run once, before its first prompt; their context goes with it.
      started ??=
        (await vetting.hooks.sessionStart({ conversationId: vetting.conversationId, signal: controller.signal }))
          ?.context ?? '';
      const decision = await vetting.hooks.userPromptSubmit({
        conversationId: vetting.conversationId,
        prompt: text,
        signal: controller.signal,
      });
      return {
        decision: withStartContext(decision ?? (text === prompt ? undefined : { prompt: text }), text, started),
        controller,
      };
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      const feedback = vetting.interrupted();
      if (!feedback) return undefined;
      text = feedback;
      controller = new AbortController();
      vetting.restarted(controller);
    }
  }
}

/** The decision with the session's start context joined to what the prompt hooks added. */
function withStartContext(
  decision: PromptDecision | undefined,
  text: string,
  started: string,
): PromptDecision | undefined {
  if (!started || (decision && 'block' in decision)) return decision;
  const prompt = decision?.prompt ?? text;
  const context = [started, decision?.context].filter(Boolean).join('\n\n');
  return { prompt, context };
}
