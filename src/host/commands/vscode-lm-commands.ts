/**
 * "OpenAgent: List VS Code Tools" and the VS Code provider's model pick: the palette's views
 * of what VS Code offers (other extensions' tools, its chat models).
 */
import * as vscode from 'vscode';
import { describeChatModel } from '../llm/vscode-lm-client';
import { listVscodeTools, type VscodeToolsOptions } from '../llm/vscode-tools';
import type { VscodeLmSurface } from '../llm/vscode-lm-surface';

/** Lists VS Code's tools with the extension each comes from and the name the model sees. */
export async function listVscodeToolsCommand(
  surface: Pick<VscodeLmSurface, 'lm' | 'extensions'>,
  options: VscodeToolsOptions,
): Promise<void> {
  const listings = listVscodeTools(surface, options);
  if (listings.length === 0) {
    void vscode.window.showInformationMessage('OpenAgent: no extension has registered a tool with VS Code.');
    return;
  }
  await vscode.window.showQuickPick(
    listings.map((listing) => ({
      label: listing.offeredAs ?? listing.name,
      description: `${listing.extension ? `from ${listing.extension}` : 'from VS Code'}${
        listing.leftOut
          ? ` · not offered: ${listing.leftOut}`
          : listing.offeredAs !== listing.name
            ? ` · ${listing.name}`
            : ''
      }`,
      detail: listing.description || undefined,
    })),
    {
      title: 'OpenAgent: VS Code tools',
      placeHolder: `${listings.filter((listing) => listing.offeredAs).length} of ${listings.length} offered to the model; each call asks unless policy allows it (tools.allow: [vscode_*])`,
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
}

/** The id of the VS Code chat model the user picks, or undefined. */
export async function pickVscodeModel(
  surface: Pick<VscodeLmSurface, 'lm'>,
  current: string,
): Promise<string | undefined> {
  const models = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Asking VS Code for its chat models…' },
    () => Promise.resolve(surface.lm.selectChatModels()).catch(() => [] as vscode.LanguageModelChat[]),
  );
  if (models.length === 0) {
    void vscode.window.showWarningMessage(
      'VS Code offers no chat models: install or sign in to an extension that provides them (GitHub Copilot, for example).',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    models.map((model) => ({
      label: describeChatModel(model),
      description: `${model.id}${model.id === current ? ' · current' : ''}`,
      detail: model.maxInputTokens ? `${model.maxInputTokens.toLocaleString('en-US')} input tokens` : undefined,
      id: model.id,
    })),
    { placeHolder: 'Models VS Code offers', matchOnDescription: true },
  );
  return picked?.id;
}
