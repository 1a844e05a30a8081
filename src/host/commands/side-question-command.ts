/**
 * "OpenAgent: Ask a Side Question": the palette's `/btw`. The question is typed in an input
 * box; the answer shows in the chat's side-answer block (the chat is brought up for it), apart
 * from the transcript and never added to the conversation. A refusal (nothing to ask, no
 * conversation yet, a spent budget) or a failure is said in a warning.
 */
import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';

export async function askSideQuestion(session: ConversationSession, focusChat: () => Thenable<unknown>): Promise<void> {
  const question = await vscode.window.showInputBox({
    title: 'Ask a Side Question',
    prompt: 'Answered from the conversation so far, without tools, and not kept in it. The agent goes on meanwhile.',
    placeHolder: 'e.g. why did you choose sql.js?',
    ignoreFocusOut: true,
  });
  if (question === undefined) return;
  await focusChat();
  const answer = await session.sideQuestions.ask(question);
  if (answer.status === 'refused' || answer.status === 'failed')
    void vscode.window.showWarningMessage(answer.note ?? `The side question ${answer.status}.`);
}
