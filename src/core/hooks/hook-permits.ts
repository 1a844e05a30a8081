/**
 * The allow a repository's hook needs before it runs (issue 35, item 5): "Allow hook `cmd` from
 * .claude/settings.json to run on PreToolUse(Bash)?", asked once per exact hook (its
 * fingerprint: file, event, matcher, command, folder, env, timeout, workspace, and the content
 * of the workspace files its command runs) and kept in a store, so a changed hook — or a changed
 * script — asks again, and the question says what changed. A "no" holds for the rest of this process (the hook is reported as
 * not run, not asked about at every tool call). One question at a time.
 */
import { changedParts, changeNote } from '../workspace/allow-fingerprint';
import { describeHookInFull, type SharedHook } from './shared-hook-config';
import type { HookPermits } from './shared-hooks';

/**
 * The parts of a hook's fingerprint after its identity (workspace, file, event, matcher,
 * command), in order: how the question names one that changed since the allow.
 */
export const HOOK_FINGERPRINT_PARTS = ['its folder or environment', 'its timeout', 'a file it runs'] as const;

export interface AllowedHooksStore {
  isAllowed(fingerprint: string): Promise<boolean>;
  allow(fingerprint: string): Promise<void>;
  /** Every fingerprint allowed, oldest first: to say what changed since an allow that no longer holds. */
  allowedFingerprints?(): Promise<string[]>;
}

export interface HookPermitDeps {
  store: AllowedHooksStore;
  /** Reads the files the hook runs (node side): a promise. */
  fingerprint(hook: SharedHook): string | Promise<string>;
  /** Puts the question to the user; true for allow. No one to ask (a script): resolve false. */
  ask(question: string, hook: SharedHook, signal?: AbortSignal): Promise<boolean>;
}

export class AskingHookPermits implements HookPermits {
  private readonly answered = new Map<string, Promise<boolean>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: HookPermitDeps) {}

  async permit(hook: SharedHook, signal?: AbortSignal): Promise<boolean> {
    // Taken at every call: a script changed since the last tool call is another fingerprint.
    const fingerprint = await this.deps.fingerprint(hook);
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
    const earlier = (await this.deps.store.allowedFingerprints?.()) ?? [];
    const note = changeNote(changedParts(earlier, fingerprint, HOOK_FINGERPRINT_PARTS));
    const asked = this.queue.then(() => {
      signal?.throwIfAborted();
      return this.deps.ask(hookQuestion(hook, note), hook, signal);
    });
    this.queue = asked.catch(() => undefined);
    const yes = await asked;
    if (yes) await this.deps.store.allow(fingerprint);
    return yes;
  }
}

/** `note`: what changed since an earlier allow of the same hook (changeNote), or ''. */
export function hookQuestion(hook: SharedHook, note = ''): string {
  return `Allow hook ${describeHookInFull(hook)} to run?${note ? ` ${note}` : ''} It is code from the repository; it runs only in the sandbox.`;
}
