/** The real `vscode` namespace as the surface the VS Code provider and tools use (see vscode-lm-surface.ts). */
import * as vscode from 'vscode';
import type { VscodeLmSurface } from './vscode-lm-surface';

/** The namespaces themselves are passed on: `lm.tools` and `extensions.all` are live getters. */
export function vscodeLmSurface(): VscodeLmSurface {
  return {
    lm: vscode.lm,
    LanguageModelChatMessage: vscode.LanguageModelChatMessage,
    LanguageModelTextPart: vscode.LanguageModelTextPart,
    LanguageModelToolCallPart: vscode.LanguageModelToolCallPart,
    LanguageModelToolResultPart: vscode.LanguageModelToolResultPart,
    LanguageModelPromptTsxPart: vscode.LanguageModelPromptTsxPart,
    LanguageModelError: vscode.LanguageModelError,
    CancellationTokenSource: vscode.CancellationTokenSource,
    extensions: vscode.extensions,
  };
}
