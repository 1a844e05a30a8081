/**
 * "OpenAgent: Show History" (the chat's title bar and the command palette): saved
 * conversations in a quick pick, newest first. Typing searches titles and the text of prompts
 * and answers; each entry reopens on Enter and has Rename and Delete buttons.
 */
import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { StoredConversation } from '../../core/ports';

interface Entry extends vscode.QuickPickItem {
  conversation: StoredConversation;
}

const RENAME: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: 'Rename' };
const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Delete' };

export async function showHistory(session: ConversationSession, focusChat: () => Thenable<unknown>): Promise<void> {
  const pick = vscode.window.createQuickPick<Entry>();
  pick.placeholder = 'Search conversations (titles, prompts and answers)';
  pick.matchOnDescription = true;
  let query = 0;
  const refresh = async () => {
    const mine = ++query;
    pick.busy = true;
    const conversations = await session.library.list({ search: pick.value });
    if (mine !== query) return;
    pick.busy = false;
    pick.items = conversations.map((conversation) => ({
      label: conversation.title || 'Untitled',
      description: `${describeTime(conversation.updatedAt)}${conversation.id === session.currentId ? ' · open' : ''}`,
      buttons: [RENAME, DELETE],
      // Matches found in the text are shown even when the title does not contain the words.
      alwaysShow: true,
      conversation,
    }));
    if (conversations.length === 0)
      pick.placeholder = pick.value ? 'No conversation matches' : 'No saved conversations yet';
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  pick.onDidChangeValue(() => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 150);
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    if (!chosen) return;
    pick.hide();
    if (!(await session.open(chosen.conversation.id)))
      void vscode.window.showWarningMessage(`OpenAgent could not find "${chosen.label}" in its store any more.`);
    else await focusChat();
  });
  pick.onDidTriggerItemButton(async ({ item, button }) => {
    if (button === RENAME) {
      const title = await vscode.window.showInputBox({
        prompt: 'New name for the conversation',
        value: item.conversation.title,
        validateInput: (value) => (value.trim() ? undefined : 'The name cannot be empty.'),
      });
      if (title) await session.library.rename(item.conversation.id, title);
      pick.show();
    } else if (button === DELETE) {
      const remove = 'Delete';
      const answer = await vscode.window.showWarningMessage(
        `Delete "${item.label}"?`,
        { modal: true, detail: 'The conversation, its usage records and its audit entries stay deleted.' },
        remove,
      );
      if (answer === remove) await session.deleteConversation(item.conversation.id);
      pick.show();
    }
    await refresh();
  });
  pick.onDidHide(() => {
    clearTimeout(timer);
    pick.dispose();
  });
  pick.show();
  await refresh();
}

function describeTime(time: number): string {
  const minutes = Math.round((Date.now() - time) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.round(minutes / 60)} h ago`;
  return new Date(time).toLocaleDateString();
}
