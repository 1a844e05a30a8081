/**
 * The editor's side of hooks in the shared JSON format (issue 35, item 5): the workspace's
 * `.claude/settings.json`, `.claude/settings.local.json`, `.github/hooks/*.json` and the user's
 * `~/.claude/settings.json`, added to the window's hooks. A repository's hook runs only in a
 * trusted workspace and after a modal "Allow" for that exact hook (kept in the extension's
 * storage, `allowed-hooks.json`); every hook runs in the sandbox the bash tool uses.
 */
import * as vscode from 'vscode';
import type { Hooks } from '../core/agent/hooks';
import { AskingHookPermits } from '../core/hooks/hook-permits';
import { installSharedHooks } from '../core/hooks/shared-hooks';
import type { CommandLauncher } from '../node/child-process-shell';
import { SandboxedHookRunner } from '../node/sandboxed-hook-runner';
import { AllowedHooksFile, hookFingerprint, SharedHookFiles } from '../node/shared-hook-files';

export function wireSharedHooks(
  context: vscode.ExtensionContext,
  hooks: Hooks,
  launcher: CommandLauncher,
  root: () => string | undefined,
): void {
  const files = new SharedHookFiles({
    root,
    userHooks: () => vscode.workspace.getConfiguration('openagent').get<boolean>('hooks.readUserClaudeSettings', true),
  });
  const store = new AllowedHooksFile(vscode.Uri.joinPath(context.globalStorageUri, 'allowed-hooks.json').fsPath);
  const permits = new AskingHookPermits({
    store,
    fingerprint: (hook) => hookFingerprint(root() ?? '', hook),
    ask: async (question) => (await vscode.window.showWarningMessage(question, { modal: true }, 'Allow')) === 'Allow',
  });
  const remove = installSharedHooks(hooks, {
    load: () => files.load(),
    trusted: () => vscode.workspace.isTrusted,
    root,
    runner: new SandboxedHookRunner(launcher),
    permits,
    report: (message) => void vscode.window.showWarningMessage(`OpenAgent hooks: ${message}`),
  });
  context.subscriptions.push({ dispose: remove });
}
