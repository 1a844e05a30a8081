/**
 * The VS Code provider and VS Code's tools, wired for the window (issue 35, items 1 and 2):
 * the real `vscode` namespace as the surface the host adapters use, the port the model routing
 * asks for editor models, the tools for new conversations, and the palette command.
 */
import type * as vscode from 'vscode';
import type { EditorModels } from '../core/llm/editor-models';
import type { AnyTool } from '../core/tools/tool';
import type { CommandHandler } from '../host/commands/palette';
import { listVscodeToolsCommand } from '../host/commands/vscode-lm-commands';
import { vscodeEditorModels } from '../host/llm/vscode-lm-client';
import { vscodeLmSurface } from '../host/llm/editor-lm-surface';
import { vscodeTools } from '../host/llm/vscode-tools';

export interface VscodeLmWiring {
  editorModels: EditorModels;
  /** VS Code's tools, named apart from the conversation's other tools (`taken`). */
  tools(taken: readonly AnyTool[]): AnyTool[];
  commands: Record<string, CommandHandler>;
}

export function wireVscodeLm(context: vscode.ExtensionContext): VscodeLmWiring {
  const surface = vscodeLmSurface();
  const options = { ownExtensionId: context.extension.id };
  return {
    editorModels: vscodeEditorModels(surface),
    tools: (taken) => {
      try {
        return vscodeTools(surface, options, new Set(taken.map((tool) => tool.name)));
      } catch (error) {
        // Another extension's tool list must never keep a conversation from starting.
        console.warn("OpenAgent could not read VS Code's tools:", error);
        return [];
      }
    },
    commands: { 'openagent.listVscodeTools': () => listVscodeToolsCommand(surface, options) },
  };
}
