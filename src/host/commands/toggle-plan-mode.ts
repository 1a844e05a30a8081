/**
 * "OpenAgent: Toggle Plan Mode": for the current conversation (or the next one), only
 * read-only tools until the user approves the agent's plan. The chat shows the switch.
 */
import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';

export function togglePlanMode(session: ConversationSession): void {
  const on = !session.planModeActive;
  session.setPlanMode(on);
  void vscode.window.showInformationMessage(
    on
      ? 'OpenAgent plan mode is on: the agent reads and plans, and changes nothing until you approve its plan.'
      : 'OpenAgent plan mode is off: the agent may edit files and run commands (with your approval).',
  );
}
