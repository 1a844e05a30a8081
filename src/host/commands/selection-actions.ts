/**
 * The selection commands (palette and editor context menu): Ask About Selection, and Explain /
 * Fix / Refactor / Write Tests for Selection. Each sends a prompt with @selection attached (the
 * selected code with its file and lines) and brings the chat forward to show the answer. Fix,
 * Refactor and Write Tests are code work for the model policy (SPEC 2.3); the others chat.
 */
import * as vscode from 'vscode';
import type { WorkKind } from '../../core/policy/model-routes';

export type SendPrompt = (prompt: string, work?: WorkKind) => Promise<void>;

const ACTIONS: Record<string, string> = {
  explain: 'Explain what this code does and why, step by step: @selection',
  fix: 'Find and fix the bugs in this code. Say what was wrong, then make the change: @selection',
  refactor:
    'Refactor this code for clarity and maintainability without changing its behaviour, then make the change: @selection',
  writeTests:
    'Write tests for this code, following the project’s existing test framework and style, and run them: @selection',
};

export function selectionAction(action: keyof typeof ACTIONS, send: SendPrompt): () => Promise<void> {
  return async () => {
    if (!hasSelection()) return;
    await send(ACTIONS[action]!, action === 'explain' ? 'chat' : 'code');
  };
}

export async function askAboutSelection(send: SendPrompt): Promise<void> {
  if (!hasSelection()) return;
  const question = await vscode.window.showInputBox({
    prompt: 'Ask OpenAgent about the selected code',
    placeHolder: 'e.g. Why is this slow?',
    validateInput: (value) => (value.trim() ? undefined : 'Type a question.'),
  });
  if (question) await send(`${question.trim()}\n\n@selection`);
}

function hasSelection(): boolean {
  const editor = vscode.window.activeTextEditor;
  if (editor && !editor.selection.isEmpty) return true;
  void vscode.window.showInformationMessage('Select some code in the editor first.');
  return false;
}
