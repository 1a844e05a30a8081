/**
 * The one composition root. Activation registers what VS Code shows — the chat view, the
 * developer panel's restore, every command, the status bar — and returns the extension API;
 * it makes only what must work from the start (the team's status, the terminal history for
 * @terminal, the policy file's problems). Everything behind them — the session, the core, the
 * host adapters — is wired by src/kit/runtime.ts, a file of its own loaded the first time one
 * of them is used (issue 23: activation loads only what activation needs).
 */
import * as vscode from 'vscode';
import type { AgentEvent } from './core/events/events';
import { lazyModule } from './core/lazy-module';
import type { ExtensionToolDefinition } from './core/tools/extension-tools';
import type { CommandHandler } from './host/commands/palette';
import type { OpenAgentExtensionApi } from './host/extension-api';
import { PolicyDiagnostics } from './host/policy-diagnostics';
import { readPlanModeDefault } from './host/settings';
import { AgentStatusBar } from './host/status-bar';
import { TEAM_STATUS_COMMAND, TeamService } from './host/team-service';
import { SHOW_TEAM_APPROVALS_COMMAND, TeamApproverNotifications } from './host/approvals/team-approver-notifications';
import { TerminalHistory } from './host/terminal/terminal-history';
import { CHAT_VIEW_TYPE, DEVELOPER_PANEL_TYPE, SESSION_LIST_VIEW } from './host/view-types';
import { showChatPage } from './host/chat/chat-page';
import { holdMessages } from './host/chat/held-webview';
import { StoreOpener } from './kit/store-opener';
import { HeldSecrets } from './core/llm/held-secrets';
import type * as RuntimeModule from './kit/runtime';

type Runtime = RuntimeModule.Runtime;

const runtimeModule = lazyModule(() => require('./kit/runtime') as typeof RuntimeModule);

/** What OpenAgent offers other extensions (SPEC 2.11), and what its own tests read. */
export interface OpenAgentApi extends OpenAgentExtensionApi {
  readonly version: string;
  /** Fires when a chat webview has loaded and completed its handshake. */
  readonly onDidChatViewBecomeReady: vscode.Event<void>;
  readonly isChatViewReady: boolean;
  /** Whether the developer panel is open and its webview has completed its handshake. */
  readonly isDeveloperPanelReady: boolean;
  /** The conversation on screen (running or reopened), if any. */
  readonly conversationId: string | undefined;
  /** Whether the current (or next) conversation is in plan mode. */
  readonly planModeActive: boolean;
  /** Whether the agent is working on a prompt right now. */
  readonly isRunning: boolean;
}

interface Manifest {
  version: string;
  contributes: { commands: Array<{ command: string }> };
}

const openWalkthrough = async () => {
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'openagent.openagent#gettingStarted', false);
};

export function activate(context: vscode.ExtensionContext): OpenAgentApi {
  const manifest = context.extension.packageJSON as Manifest;
  // Every secret the extension holds (the environment's keys now; SecretStorage's, the team
  // database's password and telemetry headers as they are read): redacted from every sink.
  const heldSecrets = new HeldSecrets();
  heldSecrets.addEnvironment(process.env);
  // The store opens on first use: a conversation, the history, or the team's outbox.
  const stores = new StoreOpener({
    secrets: heldSecrets.matcher,
    directory: vscode.Uri.joinPath(context.globalStorageUri, 'store').fsPath,
    wasmPath: vscode.Uri.joinPath(context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath,
    tell: (severity, message) =>
      void (severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage)(
        `OpenAgent: ${message}`,
      ),
  });
  // The team control plane (opt-in): a configured team's status shows from the start.
  const team = new TeamService({
    secrets: context.secrets,
    heldSecrets,
    cacheFile: vscode.Uri.joinPath(context.globalStorageUri, 'team-policy.yaml').fsPath,
    root: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    outbox: () => stores.open().catch(() => undefined),
  });
  // Requests waiting for this member as a named approver (issue 37): only with a team open.
  const approver = new TeamApproverNotifications(team);
  // Commands run before the first @terminal mention count: the history listens from now on.
  const terminalHistory = new TerminalHistory();
  const statusBar = new AgentStatusBar('openagent.focusChat');
  const chatBecameReady = new vscode.EventEmitter<void>();
  const events = new vscode.EventEmitter<AgentEvent>();
  const sessionsChanged = new vscode.EventEmitter<undefined>();
  context.subscriptions.push(
    team,
    approver,
    terminalHistory,
    statusBar,
    chatBecameReady,
    events,
    sessionsChanged,
    new PolicyDiagnostics(),
  );

  let runtime: Runtime | undefined;
  /** The runtime, made the first time something needs it. */
  const use = (): Runtime => {
    if (runtime) return runtime;
    runtime = runtimeModule().createRuntime({
      context,
      team,
      terminalHistory,
      statusBar,
      stores,
      heldSecrets,
      openWalkthrough,
    });
    context.subscriptions.push(
      runtime.chatView.onDidBecomeReady(() => chatBecameReady.fire()),
      runtime.extensionApi.onDidEmitEvent((event) => events.fire(event)),
      runtime.sessionList.onDidChangeTreeData(() => sessionsChanged.fire(undefined)),
    );
    return runtime;
  };

  // Every contributed command, registered now; its handler is the runtime's (the team's are here).
  const teamCommands: Record<string, CommandHandler> = {
    'openagent.setTeamDatabase': () => team.setDatabase(),
    [TEAM_STATUS_COMMAND]: () => team.showStatus(),
    [SHOW_TEAM_APPROVALS_COMMAND]: () => approver.showApprovals(),
  };
  const run = (id: string, args: never[]) => {
    const handler = teamCommands[id] ?? use().commands[id];
    if (!handler) throw new Error(`OpenAgent has no handler for the command ${id}.`);
    return handler(...args);
  };
  for (const { command } of manifest.contributes.commands)
    context.subscriptions.push(vscode.commands.registerCommand(command, (...args: never[]) => run(command, args)));

  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_TYPE, {
      resolveWebviewView: (view) => openChat(view, context.extensionUri, use),
    }),
    // The session list: its rows come from the runtime, loaded when the list first shows.
    vscode.window.createTreeView(SESSION_LIST_VIEW, {
      treeDataProvider: {
        onDidChangeTreeData: sessionsChanged.event,
        getChildren: (element?: string) => use().sessionList.getChildren(element),
        getTreeItem: (id: string) => use().sessionList.getTreeItem(id),
      },
    }),
    vscode.window.registerWebviewPanelSerializer(DEVELOPER_PANEL_TYPE, {
      deserializeWebviewPanel: (panel, state) => use().developerPanel.serializer.deserializeWebviewPanel(panel, state),
    }),
  );

  shutdown = async () => {
    await runtime?.shutdown();
    // What waits in the outbox is sent now if the team database answers (otherwise next time).
    await team.close();
    await stores.close();
  };

  return {
    registerTool: <Input>(definition: ExtensionToolDefinition<Input>) => use().extensionApi.registerTool(definition),
    registerHooks: (hooks) => use().extensionApi.registerHooks(hooks),
    startConversation: (prompt, options) => use().extensionApi.startConversation(prompt, options),
    onDidEmitEvent: events.event,
    version: manifest.version,
    onDidChatViewBecomeReady: chatBecameReady.event,
    get isChatViewReady() {
      return runtime?.chatView.isReady ?? false;
    },
    get isDeveloperPanelReady() {
      return runtime?.developerPanel.isReady ?? false;
    },
    get conversationId() {
      return runtime?.session.currentId;
    },
    get planModeActive() {
      return runtime?.session.planModeActive ?? readPlanModeDefault();
    },
    get isRunning() {
      return runtime?.session.isRunning ?? false;
    },
  };
}

/**
 * The chat view: its page first, so the webview loads and paints while nothing else runs; the
 * runtime once the page has spoken (its composer is up). Loading the runtime sooner kept the
 * extension host busy while VS Code carried the page into the webview, which held back the
 * composer by about a tenth of a second. What the page says meanwhile is held for the chat's
 * controller.
 */
function openChat(view: vscode.WebviewView, extensionUri: vscode.Uri, use: () => Runtime): void {
  const webview = holdMessages(view.webview);
  showChatPage(view, extensionUri);
  let disposed = false;
  const attach = () => {
    if (disposed) return;
    try {
      use().chatView.attach(view, webview);
    } catch (error) {
      void vscode.window.showErrorMessage(`OpenAgent could not open its chat: ${String(error)}`);
    }
  };
  const spoke = view.webview.onDidReceiveMessage(() => {
    spoke.dispose();
    setTimeout(attach, 0);
  });
  view.onDidDispose(() => {
    disposed = true;
    spoke.dispose();
    webview.dispose();
  });
}

/** Set by activate(): ends the runs, saves what is still queued and closes the store. */
let shutdown: (() => Promise<void>) | undefined;

export async function deactivate(): Promise<void> {
  // Everything else is released through context.subscriptions.
  await shutdown?.();
}
