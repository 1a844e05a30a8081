/**
 * The part of the `vscode` API the "VS Code" provider and the other extensions' tools use,
 * passed in rather than imported: the editor gives the real namespace, unit tests a small fake
 * (test/unit/host/vscode-lm-fake.ts), so the mapping is tested without an editor.
 */
import type * as vscode from 'vscode';

export interface VscodeLmSurface {
  lm: {
    selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]>;
    readonly tools: readonly vscode.LanguageModelToolInformation[];
    invokeTool(
      name: string,
      options: vscode.LanguageModelToolInvocationOptions<object>,
      token?: vscode.CancellationToken,
    ): Thenable<vscode.LanguageModelToolResult>;
  };
  LanguageModelChatMessage: typeof vscode.LanguageModelChatMessage;
  LanguageModelTextPart: typeof vscode.LanguageModelTextPart;
  LanguageModelToolCallPart: typeof vscode.LanguageModelToolCallPart;
  LanguageModelToolResultPart: typeof vscode.LanguageModelToolResultPart;
  LanguageModelPromptTsxPart: typeof vscode.LanguageModelPromptTsxPart;
  LanguageModelError: typeof vscode.LanguageModelError;
  CancellationTokenSource: typeof vscode.CancellationTokenSource;
  /** Every installed extension: where a tool comes from is read from their package.json. */
  extensions: { readonly all: ReadonlyArray<{ readonly id: string; readonly packageJSON: unknown }> };
}

/** A VS Code cancellation token cancelled when `signal` aborts; dispose it when the work is over. */
export function tokenFor(
  surface: Pick<VscodeLmSurface, 'CancellationTokenSource'>,
  signal: AbortSignal | undefined,
): { token: vscode.CancellationToken; dispose(): void } {
  const source = new surface.CancellationTokenSource();
  const cancel = () => source.cancel();
  if (signal?.aborted) cancel();
  else signal?.addEventListener('abort', cancel, { once: true });
  return {
    token: source.token,
    dispose: () => {
      signal?.removeEventListener('abort', cancel);
      source.dispose();
    },
  };
}
