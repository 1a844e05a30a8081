/**
 * The allow a repository's hook needs before it runs (issue 35, item 5): "Allow hook `cmd` from
 * .claude/settings.json to run on PreToolUse(Bash)?", asked once per exact hook (its
 * fingerprint: file, event, matcher, command, folder, env, workspace) and kept in a store, so a
 * changed hook asks again. A "no" holds for the rest of this process (the hook is reported as
 * not run, not asked about at every tool call). One question at a time.
 */
import { describeHookInFull, type SharedHook } from './shared-hook-config';
import type { HookPermits } from './shared-hooks';

export interface AllowedHooksStore {
  isAllowed(fingerprint: string): Promise<boolean>;
  allow(fingerprint: string): Promise<void>;
}

export interface HookPermitDeps {
  store: AllowedHooksStore;
  fingerprint(hook: SharedHook): string;
  /** Puts the question to the user; true for allow. No one to ask (a script): resolve false. */
  ask(question: string, hook: SharedHook, signal?: AbortSignal): Promise<boolean>;
}

export class AskingHookPermits implements HookPermits {
  private readonly answered = new Map<string, Promise<boolean>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: HookPermitDeps) {}

  permit(hook: SharedHook, signal?: AbortSignal): Promise<boolean> {
    const fingerprint = this.deps.fingerprint(hook);
    let answer = this.answered.get(fingerprint);
    if (!answer) {
      answer = this.decide(fingerprint, hook, signal);
      this.answered.set(fingerprint, answer);
      // A question cut short by a Stop is asked again next time.
      answer.catch(() => this.answered.delete(fingerprint));
    }
    return answer;
  }

  private async decide(fingerprint: string, hook: SharedHook, signal?: AbortSignal): Promise<boolean> {
    if (await this.deps.store.isAllowed(fingerprint)) return true;
    const asked = this.queue.then(() => {
      signal?.throwIfAborted();
      return this.deps.ask(hookQuestion(hook), hook, signal);
    });
    this.queue = asked.catch(() => undefined);
    const yes = await asked;
    if (yes) await this.deps.store.allow(fingerprint);
    return yes;
  }
}

export function hookQuestion(hook: SharedHook): string {
  return `Allow hook ${describeHookInFull(hook)} to run? It is code from the repository; it runs only in the sandbox.`;
}
