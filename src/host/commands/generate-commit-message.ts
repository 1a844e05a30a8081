/**
 * "Generate Commit Message" (the Source Control view's title bar): writes a conventional-commit
 * message for the staged changes into the repository's commit box, with the configured model.
 */
import * as vscode from 'vscode';
import { writeCommitMessage } from '../../core/agent/commit-message';
import { createLlmClient } from '../../core/llm/create-llm-client';
import type { SecretSource } from '../../core/ports';
import { readModelSettings } from '../settings';

interface Repository {
  rootUri: vscode.Uri;
  inputBox: { value: string };
  diff(cached?: boolean): Promise<string>;
}

export async function generateCommitMessage(secrets: SecretSource, scm?: { rootUri?: vscode.Uri }): Promise<void> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): { repositories: Repository[] } }>(
    'vscode.git',
  );
  if (!extension) return void vscode.window.showWarningMessage('The Git extension is not available.');
  const git = (extension.isActive ? extension.exports : await extension.activate()).getAPI(1);
  const repository =
    git.repositories.find((repo) => repo.rootUri.toString() === scm?.rootUri?.toString()) ?? git.repositories[0];
  if (!repository) return void vscode.window.showInformationMessage('This folder is not a Git repository.');
  const diff = await repository.diff(true);
  if (!diff.trim())
    return void vscode.window.showInformationMessage(
      'Stage some changes first: the message describes the staged diff.',
    );
  const settings = readModelSettings();
  const setup = createLlmClient(settings, await secrets.getApiKey(settings.provider));
  if (!setup.ok) {
    const choice = await vscode.window.showWarningMessage(setup.message, 'Set API Key');
    if (choice) await vscode.commands.executeCommand('openagent.setApiKey');
    return;
  }
  try {
    const message = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.SourceControl, title: 'Writing the commit message…', cancellable: true },
      (_progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        return writeCommitMessage(setup.client, setup.model, diff, controller.signal);
      },
    );
    if (message) repository.inputBox.value = message;
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') return;
    void vscode.window.showErrorMessage(
      `OpenAgent could not write the commit message: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
