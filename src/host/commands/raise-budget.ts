/**
 * "Raise Budget" (from a budget notification): asks for a new limit and writes it where the
 * limit in force comes from — the workspace's .openagent/agent.yaml (edited in place, comments
 * kept, undoable, saved) and/or the user's openagent.policy setting. Both apply (the lower
 * wins), so every source below the new limit is raised.
 */
import * as vscode from 'vscode';
import type { AgentPolicy } from '../../core/policy/agent-policy';
import { budgetKey, describeLimit, formatAmount, type BudgetScope, type BudgetUnit } from '../../core/policy/budget';
import { setPolicyValue } from '../../core/policy/policy-edit';

type Budget = NonNullable<AgentPolicy['budget']>;

export interface BudgetSources {
  workspacePolicy(): { uri: vscode.Uri; policy: AgentPolicy } | undefined;
  userPolicy(): AgentPolicy | undefined;
  /** Reads the policy file again, so the raised limit applies to the very next model call. */
  refresh(): Promise<void>;
}

export async function raiseBudget(scope: BudgetScope, unit: BudgetUnit, sources: BudgetSources): Promise<boolean> {
  const key = budgetKey(scope, unit);
  const workspace = sources.workspacePolicy();
  const inWorkspace = workspace?.policy.budget?.[key];
  const inSettings = sources.userPolicy()?.budget?.[key];
  const limits = [inWorkspace, inSettings].filter((value): value is number => typeof value === 'number');
  const what = describeLimit(scope, unit);
  if (limits.length === 0) {
    void vscode.window.showInformationMessage(`OpenAgent has no limit on ${what} any more.`);
    return false;
  }
  const current = Math.min(...limits);
  const answer = await vscode.window.showInputBox({
    title: `Raise ${what}`,
    prompt: `The limit is ${formatAmount(unit, current)} (budget.${key}). New limit${unit === 'usd' ? ' in US dollars' : ' in tokens'}:`,
    value: String(unit === 'usd' ? round(current * 2) : current * 2),
    validateInput: (text) => validateLimit(text, unit, current),
  });
  if (answer === undefined) return false;
  const value = Number(answer.trim());
  const written: string[] = [];
  if (workspace && typeof inWorkspace === 'number' && inWorkspace < value) {
    await writePolicyFile(workspace.uri, key, value);
    await sources.refresh();
    written.push('.openagent/agent.yaml');
  }
  if (typeof inSettings === 'number' && inSettings < value) {
    await writeSetting(key, value);
    written.push('your openagent.policy setting');
  }
  void vscode.window.showInformationMessage(
    `Raised ${what} to ${formatAmount(unit, value)} in ${written.join(' and ')}. Send a prompt to go on.`,
  );
  return true;
}

function validateLimit(text: string, unit: BudgetUnit, current: number): string | undefined {
  const value = Number(text.trim());
  if (!text.trim() || !Number.isFinite(value) || value <= 0) return 'Enter a positive number.';
  if (unit === 'tokens' && !Number.isInteger(value)) return 'Tokens are a whole number.';
  if (value <= current) return `Enter more than the current ${formatAmount(unit, current)}.`;
  return undefined;
}

/** Through the editor's document: open editors stay in sync, the change can be undone, and it is saved. */
async function writePolicyFile(uri: vscode.Uri, key: keyof Budget, value: number): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const text = setPolicyValue(document.getText(), ['budget', key], value);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not edit ${uri.fsPath}`);
  await document.save();
}

/** In the most specific settings level that sets this limit (user, workspace or folder settings). */
async function writeSetting(key: keyof Budget, value: number): Promise<void> {
  const config = vscode.workspace.getConfiguration('openagent');
  const inspected = config.inspect<AgentPolicy>('policy');
  const levels = [
    [vscode.ConfigurationTarget.WorkspaceFolder, inspected?.workspaceFolderValue],
    [vscode.ConfigurationTarget.Workspace, inspected?.workspaceValue],
    [vscode.ConfigurationTarget.Global, inspected?.globalValue],
  ] as const;
  const [target, policy] = levels.find(([, candidate]) => candidate?.budget?.[key] !== undefined) ?? levels[2];
  await config.update('policy', { ...policy, budget: { ...policy?.budget, [key]: value } }, target);
}

function round(amount: number): number {
  return Math.round(amount * 100) / 100;
}
