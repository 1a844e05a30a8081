/**
 * The models the editor offers (VS Code's language models, vscode.lm) as a port: the host fills
 * it in the editor; the CLI has none, so the "vscode" provider there says where it works.
 */
import type { LlmClient } from './llm-client';

export interface EditorModels {
  /** A client for the editor's model `model` (an id VS Code gave; empty: the first it offers). */
  client(model: string): LlmClient;
}

export const EDITOR_ONLY_MESSAGE =
  'The VS Code provider exists only in the editor: its models are the ones VS Code offers to extensions. ' +
  'Choose another provider here (for example --provider anthropic, or /model ollama/<model>).';
