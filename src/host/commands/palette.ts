/**
 * The command table (SPEC 1.4): every palette and context-menu command bound to what it does.
 * The composition root builds the objects; this only says which command calls what.
 */
import type { PresetLibrary } from '../../core/knowledge/presets';
import * as vscode from 'vscode';
import type { ReadOnlyDocuments } from '../read-only-documents';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { MentionResolver } from '../../core/session/mentions';
import type { Memory } from '../../core/knowledge/memory';
import type { McpServerStatus } from '../../node/mcp/mcp-connections';
import type { ConversationStore } from '../../core/ports';
import type { SecretStorageSource } from '../secret-storage-source';
import type { WorkKind } from '../../core/policy/model-routes';
import { chooseModel, choosePreset } from './choose-model';
import { openAgentPolicy, restartMcpServers } from './control-plane-commands';
import {
  compactConversation,
  exportAuditLog,
  exportCurrentConversation,
  showUsage,
  type BudgetView,
} from './conversation-commands';
import { generateCommitMessage } from './generate-commit-message';
import { addSkill, openMemory } from './knowledge-commands';
import { revertTurn } from './revert-turn';
import { askAboutSelection, selectionAction } from './selection-actions';
import { setApiKey } from './set-api-key';
import { showHistory } from './show-history';
import { askSideQuestion } from './side-question-command';
import { togglePlanMode } from './toggle-plan-mode';

export interface PaletteDeps {
  /** The session the commands act on: the one the chat shows. */
  session(): ConversationSession;
  secrets: SecretStorageSource;
  openStore: () => Promise<ConversationStore | undefined>;
  resolveMention: MentionResolver;
  /** The presets to choose from (bundled, and the trusted workspace's own). */
  presets: PresetLibrary;
  chatViewType: string;
  /** Puts text where the user types in the chat; false while the chat webview is not ready. */
  insertIntoComposer(text: string): boolean;
  showDeveloperPanel(): void;
  /** The developer panel on its Audit Log tab. */
  showAuditLog(): void;
  memory: Memory;
  restartMcpServers(): Promise<McpServerStatus[]>;
  openWalkthrough(): Promise<void>;
  budgets: BudgetView;
  /** Where text to be read (the usage table) is shown from. */
  documents: ReadOnlyDocuments;
}

/** A command's handler, as vscode.commands.registerCommand takes it. */
export type CommandHandler = (...args: never[]) => unknown;

/** The handler of every palette command, by command id (the activation code registers them). */
export function paletteCommands(deps: PaletteDeps): Record<string, CommandHandler> {
  const { secrets, openStore } = deps;
  const session = deps.session;
  const focusChat = () => vscode.commands.executeCommand(`${deps.chatViewType}.focus`);
  // Prompts sent from commands (selection actions): mentions resolved like the chat's own.
  const sendPrompt = async (prompt: string, work: WorkKind = 'chat') => {
    await focusChat();
    const problem = await session().submitWithMentions(prompt, deps.resolveMention, work);
    if (problem && (await vscode.window.showWarningMessage(problem.message, 'Set API Key')))
      await vscode.commands.executeCommand('openagent.setApiKey');
  };
  const addFileToChat = async (uri = vscode.window.activeTextEditor?.document.uri) => {
    if (!uri || uri.scheme !== 'file')
      return void vscode.window.showInformationMessage('Choose a file of the workspace.');
    const relative = vscode.workspace.asRelativePath(uri, false);
    const mention = /\s/.test(relative) ? `@file:"${relative}" ` : `@file:${relative} `;
    await focusChat();
    if (!(await waitUntil(() => deps.insertIntoComposer(mention), 5_000)))
      void vscode.window.showWarningMessage(`The OpenAgent chat did not open in time: type ${mention.trim()} in it.`);
  };

  return {
    'openagent.newChat': async () => {
      session().reset();
      await focusChat();
    },
    'openagent.stop': () => session().stop(),
    'openagent.focusChat': focusChat,
    'openagent.openDeveloperPanel': () => deps.showDeveloperPanel(),
    'openagent.showHistory': () => showHistory(session(), focusChat),
    'openagent.revertTurn': () => revertTurn(session()),
    'openagent.togglePlanMode': () => togglePlanMode(session()),
    'openagent.askAboutSelection': () => askAboutSelection(sendPrompt),
    'openagent.explainSelection': selectionAction('explain', sendPrompt),
    'openagent.fixSelection': selectionAction('fix', sendPrompt),
    'openagent.refactorSelection': selectionAction('refactor', sendPrompt),
    'openagent.writeTestsForSelection': selectionAction('writeTests', sendPrompt),
    'openagent.addFileToChat': (uri?: vscode.Uri) => addFileToChat(uri),
    'openagent.setApiKey': () => setApiKey(secrets),
    'openagent.chooseModel': () => chooseModel(secrets),
    'openagent.choosePreset': () => choosePreset(deps.presets),
    'openagent.compact': () => compactConversation(session()),
    'openagent.askSideQuestion': () => askSideQuestion(session(), focusChat),
    'openagent.exportConversation': () => exportCurrentConversation(session(), openStore),
    'openagent.showAuditLog': () => deps.showAuditLog(),
    'openagent.exportAuditLog': () => exportAuditLog(session(), openStore),
    'openagent.showUsage': () => showUsage(session(), openStore, deps.budgets, deps.documents),
    'openagent.openPolicy': openAgentPolicy,
    'openagent.restartMcpServers': () => restartMcpServers(deps.restartMcpServers),
    'openagent.generateCommitMessage': (scm?: { rootUri?: vscode.Uri }) => generateCommitMessage(secrets, scm),
    'openagent.openWalkthrough': deps.openWalkthrough,
    'openagent.openMemory': () => openMemory(deps.memory),
    'openagent.addSkill': addSkill,
  };
}

/** Polls `attempt` until it succeeds or `ms` pass (e.g. a chat webview still loading). */
async function waitUntil(attempt: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!attempt()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}
