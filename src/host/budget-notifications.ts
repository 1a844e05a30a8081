/**
 * Budget notifications (SPEC 1.5, 4.4): a warning when a limit is 80 % used, an error when a
 * blocking limit stops the agent, a warning when a warn-only limit is passed — each offering
 * "Raise Budget" and "Show Usage".
 */
import * as vscode from 'vscode';
import type { AgentEvent } from '../core/events/events';
import { budgetMessage, type BudgetScope, type BudgetUnit } from '../core/policy/budget';

type BudgetEvent = Extract<AgentEvent, { type: 'budget' }>;

export interface BudgetNotificationActions {
  raise(scope: BudgetScope, unit: BudgetUnit): Promise<unknown>;
  showUsage(): Promise<unknown>;
}

const RAISE = 'Raise Budget';
const USAGE = 'Show Usage';

/**
 * Shows budget events as notifications, one per limit while it is on screen: a sub-agent and its
 * lead stopped by the same limit show one.
 */
export function budgetNotifier(actions: BudgetNotificationActions): (event: BudgetEvent) => void {
  const open = new Set<string>();
  return (event) => {
    const key = `${event.level}|${event.action}|${event.scope}|${event.unit}`;
    if (open.has(key)) return;
    open.add(key);
    const stopped = event.level === 'exceeded' && event.action === 'block';
    const show = stopped ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(budgetMessage(event), RAISE, USAGE).then((choice) => {
      open.delete(key);
      if (choice === RAISE) return actions.raise(event.scope, event.unit);
      if (choice === USAGE) return actions.showUsage();
      return undefined;
    });
  };
}
