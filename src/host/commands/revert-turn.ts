/**
 * "OpenAgent: Revert Last Turn" (command) and "Revert This Turn" (chat button): restores the files the agent's turn
 * changed and deletes the ones it created. If the user changed one of them since, a modal asks
 * first; the outcome is shown as a notification (and in the chat, through the session's events).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { RevertPlan } from '../../core/workspace/checkpoints';

export async function revertTurn(session: ConversationSession, turn?: number): Promise<void> {
  const outcome = await session.revertTurn(turn, confirmOverwrite);
  switch (outcome.status) {
    case 'busy':
      void vscode.window.showWarningMessage('OpenAgent is still working: stop it before reverting a turn.');
      return;
    case 'nothing_to_revert':
      void vscode.window.showInformationMessage('OpenAgent has no file changes to revert in this conversation.');
      return;
    case 'cancelled':
      return;
    case 'reverted': {
      const count = outcome.restored.length + outcome.deleted.length;
      if (outcome.failed.length > 0) {
        const failed = outcome.failed.map((item) => `${relative(item.path)} (${item.reason})`).join('; ');
        void vscode.window.showWarningMessage(`OpenAgent reverted ${count} file(s) but could not restore: ${failed}.`);
      } else {
        void vscode.window.showInformationMessage(`OpenAgent reverted ${count} file(s) to before that turn.`);
      }
    }
  }
}

async function confirmOverwrite(plan: RevertPlan): Promise<boolean> {
  const revert = 'Revert Anyway';
  const answer = await vscode.window.showWarningMessage(
    'Some files changed after the agent edited them. Reverting the turn loses those changes.',
    { modal: true, detail: plan.conflicts.map(relative).join('\n') },
    revert,
  );
  return answer === revert;
}

function relative(absolute: string): string {
  return vscode.workspace.asRelativePath(absolute, false) || path.basename(absolute);
}
