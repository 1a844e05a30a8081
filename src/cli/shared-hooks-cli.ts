/**
 * The CLI's side of hooks in the shared JSON format (issue 35, item 5). The folder the CLI was
 * started in is trusted (as the user trusts their shell there), but each of a repository's hooks
 * still needs a "y" on the terminal once (kept in the store folder's `allowed-hooks.json`); with
 * no terminal to ask (a script, a pipe), a repository hook that was not allowed before does not
 * run, and the CLI says so. The user's `~/.claude/settings.json` hooks run without asking. All
 * run in the sandbox the bash tool uses.
 */
import * as path from 'node:path';
import { Hooks } from '../core/agent/hooks';
import { AskingHookPermits } from '../core/hooks/hook-permits';
import { installSharedHooks } from '../core/hooks/shared-hooks';
import type { CommandLauncher } from '../node/child-process-shell';
import { SandboxedHookRunner } from '../node/sandboxed-hook-runner';
import { AllowedHooksFile, hookFingerprint, SharedHookFiles } from '../node/shared-hook-files';
import type { LineResult } from './line-reader';

export interface CliHookDeps {
  workspaceRoot: string;
  storeDirectory: string;
  launcher: CommandLauncher;
  warn(message: string): void;
  /** Reads an answer on the terminal; undefined: there is no terminal. */
  readLine?: (question: string, signal?: AbortSignal) => Promise<LineResult>;
}

export function cliSharedHooks(deps: CliHookDeps): Hooks {
  const hooks = new Hooks();
  const permits = new AskingHookPermits({
    store: new AllowedHooksFile(path.join(deps.storeDirectory, 'allowed-hooks.json')),
    fingerprint: (hook) => hookFingerprint(deps.workspaceRoot, hook),
    ask: async (question, _hook, signal) => {
      if (!deps.readLine) return false;
      const answer = await deps.readLine(`? ${question} [y]es / [n]o: `, signal);
      return answer.kind === 'line' && /^\s*y(es)?\s*$/i.test(answer.text);
    },
  });
  installSharedHooks(hooks, {
    load: () => new SharedHookFiles({ root: () => deps.workspaceRoot }).load(),
    trusted: () => true,
    root: () => deps.workspaceRoot,
    runner: new SandboxedHookRunner(deps.launcher),
    permits,
    report: (message) => deps.warn(`openagent: ${message}`),
  });
  return hooks;
}
