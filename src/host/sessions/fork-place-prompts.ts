/**
 * The editor's side of "Fork from here: where?" (fork-placer.ts): a quick pick like New Session's,
 * an input box for the new session's name, a progress notification, and messages.
 */
import * as vscode from 'vscode';
import { visibleText } from '../../core/text/visible-text';
import type { ForkPlacerPrompts } from './fork-placer';

const shown = (text: string) => visibleText(text, { keepNewlines: false });

export const forkPlacePrompts: ForkPlacerPrompts = {
  where: async () =>
    (
      await vscode.window.showQuickPick(
        [
          { label: 'Here (this workspace)', description: 'the chat continues the fork', where: 'here' as const },
          {
            label: 'In a new worktree',
            description: 'a new session, its own folder and branch openagent/…, files as they were at that message',
            where: 'worktree' as const,
          },
        ],
        { title: 'Fork from here: where does the fork work?' },
      )
    )?.where,
  name: (suggested) =>
    Promise.resolve(
      vscode.window.showInputBox({
        title: 'Fork into a new worktree',
        prompt: 'A name for the new session (shown in the session list and its approvals)',
        value: suggested,
        validateInput: (text) => (text.trim() ? undefined : 'Give the session a name.'),
      }),
    ),
  progress: (title, work) =>
    Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, work)),
  info: (text) => void vscode.window.showInformationMessage(`OpenAgent: ${shown(text)}`),
  warning: (text) => void vscode.window.showWarningMessage(`OpenAgent: ${shown(text)}`),
  error: async (text, offerHere) => {
    const offer = offerHere ? ['Fork Here Instead'] : [];
    return (await vscode.window.showErrorMessage(`OpenAgent: ${shown(text)}`, ...offer)) === 'Fork Here Instead';
  },
};
