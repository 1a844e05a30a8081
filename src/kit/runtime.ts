/**
 * Everything behind the chat, the developer panel, the commands and the extension API: the
 * host adapters wired into the core, as the composition root (src/extension.ts) asks for them
 * the first time one is needed. Activation loads none of this (issue 23): it is a file of its
 * own (lazy-runtime.js, see lazy-module.ts), loaded when the chat opens, a command runs or
 * another extension uses the API.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConversationSession } from '../core/session/conversation-session';
import { projectSystemPrompt } from '../core/agent/project-system-prompt';
import { ProjectKnowledge } from '../core/knowledge/project-knowledge';
import type { SkillProblem } from '../core/knowledge/skills';
import { NodeKnowledgeFiles } from '../node/node-knowledge-files';
import { FileTaskStorage } from '../node/file-task-storage';
import { FileTeamStorage } from '../node/file-team-storage';
import { McpService } from '../host/mcp-service';
import { PolicySource } from '../host/policy-source';
import { webFetchTool } from '../node/web/web-fetch-tool';
import { wireReviewer } from './reviewer-wiring';
import { editorTeamApprovals } from './team-approvals-wiring';
import { policyOffers, toolPolicyFrom } from '../core/policy/policy-rules';
import { BudgetGuard } from '../core/policy/budget';
import { routeModel } from '../core/policy/model-routes';
import { storeLedger } from '../core/policy/store-ledger';
import { budgetNotifier } from '../host/budget-notifications';
import { raiseBudget } from '../host/commands/raise-budget';
import { exportAuditLog, listAudit, showUsage } from '../host/commands/conversation-commands';
import { ChatViewProvider } from '../host/chat/chat-view-provider';
import { DeveloperPanel } from '../host/panel/developer-panel';
import { policyStatusSource } from '../host/panel/policy-status';
import { openLinkWithConfirmation } from '../host/commands/open-link';
import { setApiKey } from '../host/commands/set-api-key';
import { PresetLibrary } from '../core/knowledge/presets';
import { modelLabel, PROVIDER_PRESETS } from '../core/llm/provider-presets';
import type { HeldSecrets } from '../core/llm/held-secrets';
import { loadSdkOf } from '../core/llm/sdk-modules';
import { yaml } from '../core/text/yaml';
import { chooseModel, choosePreset } from '../host/commands/choose-model';
import { editorPresetChoice } from './custom-agents-wiring';
import { paletteCommands, type CommandHandler } from '../host/commands/palette';
import { revertTurn } from '../host/commands/revert-turn';
import { findLocalServers, useLocalServer } from '../host/commands/local-servers';
import type { AgentStatusBar } from '../host/status-bar';
import { readSandboxSetting } from '../host/settings';
import { ApprovalDetails } from '../host/approvals/approval-details';
import { SecretStorageSource } from '../host/secret-storage-source';
import {
  readLimits,
  readConnection,
  readModelSettings,
  readPlanModeDefault,
  readProviderBaseUrls,
} from '../host/settings';
import { FileTranscriptSink } from '../node/file-transcript-sink';
import { EnvSecretSource } from '../node/env-secret-source';
import { systemClock } from '../node/system-clock';
import type { StoreOpener } from './store-opener';
import { sendingToTeam } from './team-opener';
import type { TeamService } from '../host/team-service';
import { layerOf } from '../core/policy/policy-layers';
import type { TerminalHistory } from '../host/terminal/terminal-history';
import { createMentionResolver, type WorktreeDiff } from '../host/chat/mention-sources';
import { pickContext } from '../host/chat/context-picker';
import { windowChatKeeping, windowWorkspace } from '../host/chat/chat-keeping';
import type { ChatActions } from '../host/chat/chat-controller';
import { askRewindFiles } from '../host/chat/rewind-question';
import { ChatKeeper } from '../core/session/chat-keeper';
import { SecretFiles } from '../node/secret-files';
import { protectedPlaces } from '../node/sandbox/protected-set';
import { wireSharedHooks } from './shared-hooks-wiring';
import { stricterSandbox } from '../core/policy/sandbox-modes';
import { describeSandbox } from '../core/policy/sandbox-status';
import { VscodeWorkspace } from '../host/workspace/vscode-workspace';
import { VscodeCodeNavigation } from '../host/workspace/vscode-code-navigation';
import { findRipgrep, vscodeRipgrepCandidates } from '../node/ripgrep-search';
import { Hooks } from '../core/agent/hooks';
import { ExtensionTools } from '../core/tools/extension-tools';
import { createExtensionApi, type OpenAgentExtensionApi } from '../host/extension-api';
import { TelemetryExport } from '../host/telemetry-export';
import { composeSession, type WindowParts } from './session-composer';
import { gitHead } from '../node/git-head';
import { createWindowSessions, worktreesFolder } from './window-sessions';
import { wireReplay } from './replay-wiring';
import { fileProblemNotices } from '../host/file-problem-notices';
import { wireReviewComments } from './review-comments-wiring';
import type { SessionListView } from '../host/sessions/session-list-view';
import { ReviewEditor } from '../host/review/review-editor';
import { ReviewCommands } from '../host/review/review-commands';
import { wireVscodeLm } from './vscode-lm-wiring';
import { wireChatImages } from './image-chat-wiring';
import { editorImages, editorModelSeesImages } from './image-wiring';

/** What activation made (it shows or listens from the start) and hands over. */
export interface RuntimeShell {
  context: vscode.ExtensionContext;
  /** The team control plane: its status item shows a configured team from activation. */
  team: TeamService;
  /** Listening to terminals since activation, for @terminal. */
  terminalHistory: TerminalHistory;
  /** Shown since activation; follows the session from now on. */
  statusBar: AgentStatusBar;
  /** The conversation store, opened on first use (the team's outbox may need it first). */
  stores: StoreOpener;
  /** Every secret the extension holds (the composition root's), for every sink. */
  heldSecrets: HeldSecrets;
  openWalkthrough(): Promise<void>;
}

/** What the composition root reaches through. */
export interface Runtime {
  readonly session: ConversationSession;
  readonly chatView: ChatViewProvider;
  readonly developerPanel: DeveloperPanel;
  /** The handler of every palette command, by command id. */
  readonly commands: Readonly<Record<string, CommandHandler>>;
  readonly extensionApi: OpenAgentExtensionApi;
  /** The session list's rows. */
  readonly sessionList: SessionListView;
  /** Ends every run and saves what is still queued (deactivation). */
  shutdown(): Promise<void>;
}

export function createRuntime(shell: RuntimeShell): Runtime {
  const { context, team, terminalHistory, stores } = shell;
  const secrets = new SecretStorageSource(context.secrets, new EnvSecretSource());
  // Every provider's key in SecretStorage is held from the start, used or not: a server may
  // echo any key it was ever sent.
  for (const provider of Object.keys(PROVIDER_PRESETS))
    void secrets.getApiKey(provider).then(
      (key) => shell.heldSecrets.add(key),
      () => undefined,
    );
  const workspaceRoot = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;

  // Rules, memory and skills: read from the files for each new conversation.
  const knowledgeFiles = new NodeKnowledgeFiles(workspaceRoot);
  const knowledge = new ProjectKnowledge({
    files: knowledgeFiles,
    workspaceRoot,
    isTrusted: () => vscode.workspace.isTrusted,
    bundledSkills: vscode.Uri.joinPath(context.extensionUri, 'skills').fsPath,
    globalMemory: vscode.Uri.joinPath(context.globalStorageUri, 'memory.md').fsPath,
  });
  const reportSkillProblems = skillProblemReporter('the skill');
  const reportInstructionProblems = skillProblemReporter('the instruction file');

  // Presets: bundled, and a trusted workspace's own. Read for each new conversation (the preset
  // setting may change), never at activation.
  const presets = new PresetLibrary(knowledgeFiles, vscode.Uri.joinPath(context.extensionUri, 'prompts').fsPath, () =>
    vscode.workspace.isTrusted ? workspaceRoot() : undefined,
  );
  const presetChoice = editorPresetChoice(presets, secrets, workspaceRoot);
  const systemPrompt = (root: string | undefined) =>
    projectSystemPrompt(
      {
        knowledge,
        preset: () => presetChoice.preset(readModelSettings),
        host: { os: `${os.type()} ${os.release()}`, shell: vscode.env.shell || process.env.SHELL || 'unknown' },
        report: ({ skills, instructions }) => {
          reportSkillProblems(skills);
          // Instruction files are named relative to the workspace; the notice opens them by full path.
          reportInstructionProblems(
            instructions.map((problem) => ({ ...problem, file: path.join(root ?? '', problem.file) })),
          );
        },
      },
      root,
    );

  const openStore = stores.open;

  // .openagent/agent.yaml: its mistakes as problems, its tool rules applied (trusted workspaces),
  // over the user's policy setting and the team's policy.
  const policy = new PolicySource(
    () => team.policy(),
    () => team.policyBroken(),
  );
  // Search with the ripgrep VS Code ships; navigation through the editor's language features.
  const ripgrep = findRipgrep(vscodeRipgrepCandidates(vscode.env.appRoot));

  const approvalDetails = new ApprovalDetails();
  context.subscriptions.push(approvalDetails);

  // MCP servers start with the first conversation; their status shows in the developer panel.
  const mcp = new McpService(context.extension.packageJSON.version as string, shell.heldSecrets, context);
  context.subscriptions.push(mcp, policy);
  // Budgets over every conversation of this window and what they start; past spending from the store.
  const ledger = storeLedger(() => openStore().catch(() => undefined));
  const budget = new BudgetGuard({
    policy: () => policy.current()?.budget,
    ledger,
    shared: () => team.current()?.budget,
    now: () => Date.now(),
  });

  // What other extensions add through the API: hooks for every conversation, tools for new ones.
  const hooks = new Hooks();
  const extensionTools = new ExtensionTools();
  const vscodeLm = wireVscodeLm(context);
  const warnShadowing = onceEach((name: string) =>
    vscode.window.showWarningMessage(
      `OpenAgent left out the tool "${name}" another extension registered: a built-in tool has that name.`,
    ),
  );

  // Everything a session shares with the others of the window; its place's parts are its own.
  const windowParts: WindowParts = {
    readSettings: () => presetChoice.settings(readModelSettings()),
    // Images: read_file's pictures and the openagent.modelAcceptsImages setting (image-wiring.ts).
    ...editorImages(),
    editorModels: vscodeLm.editorModels,
    readConnection,
    hooks,
    modelPolicy: () => policy.current()?.model_policy,
    providerBaseUrls: readProviderBaseUrls,
    budget,
    readLimits,
    transcripts: new FileTranscriptSink(vscode.Uri.joinPath(context.globalStorageUri, 'transcripts').fsPath),
    store: async () => sendingToTeam(await openStore(), () => team.kick()),
    onStoreError: stores.reportError,
    teamStamp: () => team.stamp(),
    planModeDefault: () => readPlanModeDefault(),
    isTrusted: () => vscode.workspace.isTrusted,
    // Commands run confined where the OS allows (bubblewrap); secrets never reach their environment.
    sandbox: {
      mode: () => stricterSandbox(readSandboxSetting(), policy.current()?.sandbox) ?? 'auto',
      network: () => policy.current()?.commands?.network === true,
      passEnv: () => policy.current()?.commands?.pass_env ?? [],
      hidden: () => [context.globalStorageUri.fsPath],
      windowsShell: () => vscode.workspace.getConfiguration('openagent').get<string>('windowsShell') || undefined,
    },
    ripgrep,
    navigation: new VscodeCodeNavigation(),
    approvalDetails,
    secretFiles: new SecretFiles().find,
    protectedPaths: protectedPlaces,
    prepare: async () => {
      await Promise.all([policy.refresh(), team.refresh(), presetChoice.prepare(readModelSettings())]);
    },
    connectedTools: () => mcp.tools(),
    toolPolicy: {
      ...toolPolicyFrom(
        () => policy.current(),
        (rule) => layerOf(policy.decisions(), rule),
        () => policy.broken(),
      ),
      offers: (name: string) => policyOffers(policy.current(), name),
      review: wireReviewer(context, policy, shell.heldSecrets, () => team.stamp()?.member),
    },
    teamApprovals: editorTeamApprovals(team, () => policy.current(), shell.heldSecrets),
    teamStorage: new FileTeamStorage(vscode.Uri.joinPath(context.globalStorageUri, 'teams').fsPath),
    maxTeammates: () => vscode.workspace.getConfiguration('openagent').get<number>('maxTeammates', 5),
    taskStorage: new FileTaskStorage(vscode.Uri.joinPath(context.globalStorageUri, 'tasks').fsPath),
    // web_fetch rides with the knowledge tools: offered with or without a folder, off when untrusted.
    knowledgeTools: () => [...knowledge.tools(), webFetchTool(() => policy.current())],
    extraTools: (builtIn) => {
      const { tools: added, shadowing } = extensionTools.usable(new Set(builtIn.map((tool) => tool.name)));
      shadowing.forEach(warnShadowing);
      const teamTools = team.current()?.tools() ?? [];
      return [...teamTools, ...added, ...vscodeLm.tools([...builtIn, ...teamTools, ...added])];
    },
    secrets,
    heldSecrets: shell.heldSecrets,
    clock: systemClock,
    systemPrompt,
    newId: randomUUID,
    // Every run is recorded for replay: what it depended on that only the window knows.
    recording: {
      product: context.extension.packageJSON.version as string,
      head: gitHead,
      policy: () => ({ value: policy.current() ?? null, sources: Object.keys(policy.layers()) }),
    },
  };
  const here = composeSession({ kind: 'workspace', root: workspaceRoot() }, 'Workspace', windowParts);
  const { session, sandbox } = here;
  context.subscriptions.push({ dispose: () => here.dispose() });
  wireSharedHooks(context, hooks, sandbox, workspaceRoot);

  // Mentions (@file, @selection, @problems, @git) read the folder of the session the chat shows:
  // a worktree session's own files. Set once the sessions are composed, below.
  let shownRoot: () => string | undefined = workspaceRoot;
  let worktreeDiff: WorktreeDiff = async () => undefined;
  const shownWorkspace = () => (shownRoot() ? new VscodeWorkspace(shownRoot()!) : undefined);
  const mentionSources = createMentionResolver(shownWorkspace, terminalHistory, (root) => worktreeDiff(root));
  const { resolveMention, chat: chatImages } = wireChatImages(
    () => session.library.images(),
    editorModelSeesImages(() => routeModel('chat', readModelSettings(), policy.current()?.model_policy).settings),
    shownWorkspace,
    mentionSources,
  );
  // Each window reopens its last chat when the chat view first shows (nothing is read before).
  const keeper = new ChatKeeper({
    session,
    keeping: windowChatKeeping(context),
    workspace: windowWorkspace(),
    resolveMention,
    onWriteError: (error) => console.warn('OpenAgent could not keep the chat for the next window:', error),
  });
  context.subscriptions.push({ dispose: () => keeper.dispose() });
  const chatActions: ChatActions = {
    setApiKey: async () => {
      if (await setApiKey(secrets)) await session.retry();
    },
    openSettings: async () => {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'openagent.');
    },
    openWalkthrough: shell.openWalkthrough,
    openLink: openLinkWithConfirmation,
    revertTurn: (turn) => revertTurn(sessions.shown(), turn),
    openPicker: async (picker) => {
      if (picker === 'context') return pickContext();
      if (picker === 'model') await chooseModel(secrets);
      else await choosePreset(presets);
      return undefined;
    },
    chatStatus: () => ({
      // The model chat work goes to: the model policy's, else the settings'.
      model: chatModelLabel(policy),
      preset: vscode.workspace.getConfiguration('openagent').get<string>('preset', 'coding'),
    }),
    openTurnDiff: async (turn, file) => {
      // The turn's checkpoint, else (after a reload) the file rebuilt from the turn's hunks.
      const before =
        sessions.shown().turnFileBefore(turn, file) ?? (await sessions.reviews.shown()?.review.beforeText(turn, file));
      if (before) await approvalDetails.showSinceTurn(before.absolute, before.text);
      else void vscode.window.showInformationMessage(`OpenAgent no longer has the earlier version of ${file}.`);
    },
    reviewEdits: (action, turn, file) => reviewCommands.fromChat(action, turn, file),
    resolveMention,
    findLocalServers,
    useLocalServer,
    confirmRewind: askRewindFiles,
    notify: (text) => void vscode.window.showInformationMessage(text),
    placeFork: (request) => sessions.placeFork(request),
    images: chatImages,
  };
  const chatView = new ChatViewProvider({ session, keeper }, chatActions);

  // What the first prompt needs loads once the chat shows, while the user writes it: the store,
  // YAML (skills, the policy file) and the model's SDK. A prompt sent sooner loads them itself.
  let warmedUp = false;
  context.subscriptions.push(
    chatView.onDidBecomeReady(() => {
      if (warmedUp) return;
      warmedUp = true;
      setTimeout(() => {
        void openStore().catch(() => undefined);
        void sandbox.probeInBackground();
        yaml();
        loadSdkOf(readModelSettings().provider);
      }, 0);
    }),
  );

  const developerPanel = new DeveloperPanel(
    context.extensionUri,
    session,
    mcp,
    {
      list: (scope) => listAudit(session, openStore, scope),
      export: (scope, format) => exportAuditLog(session, openStore, { scope, format }),
    },
    sandbox,
    policyStatusSource(policy, team),
  );
  developerPanel.imagesWith(chatImages);
  const budgetView = {
    policy: () => policy.current()?.budget,
    ledger,
    team: () => team.current()?.standings,
    decisions: () => policy.decisions(),
  };
  // Where commands cannot be confined, the user is told once per window, at the first prompt.
  let toldUnconfined = false;
  const tellIfUnconfined = () => {
    if (toldUnconfined) return;
    toldUnconfined = true;
    void sandbox.probeInBackground().then(() => {
      const status = sandbox.status();
      if (status.confined || status.mode === 'off' || status.refusal) return;
      void vscode.window.showInformationMessage(`OpenAgent: ${describeSandbox(status)} Approvals work as before.`);
    });
  };
  const notifyBudget = budgetNotifier({
    raise: (scope, unit) => raiseBudget(scope, unit, policy),
    showUsage: () => showUsage(session, openStore, budgetView, approvalDetails.documents),
  });
  // OpenTelemetry export of model and tool calls, while the user's settings name a collector.
  const telemetry = new TelemetryExport({
    version: context.extension.packageJSON.version as string,
    secrets: shell.heldSecrets,
  });
  context.subscriptions.push(telemetry, { dispose: session.onEvent(telemetry.record) });
  context.subscriptions.push({
    dispose: session.onEvent((event) => {
      if (event.type === 'budget') notifyBudget(event);
      if (event.type === 'user_message') tellIfUnconfined();
    }),
  });

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('openagent')) chatView.postStatus();
    }),
    chatView,
    developerPanel,
  );
  shell.statusBar.follow(session, sandbox);
  const sessions = createWindowSessions({
    context,
    windowParts,
    here,
    keeper,
    chatView,
    developerPanel,
    statusBar: shell.statusBar,
    policy: () => policy.current(),
    workspaceRoot,
  });
  shownRoot = () => sessions.reviews.shown()?.root() ?? workspaceRoot();
  worktreeDiff = sessions.worktreeDiff;
  // The review of each session's edits, hunk by hunk, in the editor (and from the chat and the palette).
  const reviewEditor = new ReviewEditor(sessions.reviews);
  const reviewCommands = new ReviewCommands(sessions.reviews, reviewEditor);
  context.subscriptions.push(reviewEditor);

  // Replay Conversation, and the developer panel's Compare tab with its re-runs.
  const replayCommands = wireReplay({
    openStore,
    developerPanel,
    approvalDetails,
    presets,
    secrets,
    heldSecrets: shell.heldSecrets,
    toolPolicy: windowParts.toolPolicy,
    ...(windowParts.teamApprovals ? { teamApprovals: windowParts.teamApprovals } : {}),
    sandbox: windowParts.sandbox,
    ripgrep,
    worktreesFolder: () => worktreesFolder(context),
    keepAsSession: async (name, worktree, conversationId) => {
      const entry = sessions.registry.create(name, { kind: 'worktree', root: worktree.root, worktree });
      await entry.session.open(conversationId);
    },
    workspaceRoot,
    product: context.extension.packageJSON.version as string,
  });
  const commands = {
    ...vscodeLm.commands,
    ...replayCommands,
    ...reviewCommands.handlers(),
    ...wireReviewComments(context, sessions),
    ...sessions.commands,
    ...paletteCommands({
      documents: approvalDetails.documents,
      session: sessions.shown,
      secrets,
      openStore,
      resolveMention,
      presets,
      chatViewType: ChatViewProvider.viewType,
      insertIntoComposer: (text) => chatView.insertIntoComposer(text),
      showDeveloperPanel: () => developerPanel.show(),
      showAuditLog: () => developerPanel.showAudit(),
      memory: knowledge.memory,
      restartMcpServers: () => mcp.restart(),
      openWalkthrough: shell.openWalkthrough,
      budgets: budgetView,
    }),
  };

  const extensionApi = createExtensionApi({
    session,
    hooks,
    tools: extensionTools,
    focusChat: () => vscode.commands.executeCommand('openagent.focusChat'),
  });
  context.subscriptions.push(extensionApi);

  return {
    session,
    chatView,
    developerPanel,
    commands,
    extensionApi,
    sessionList: sessions.list,
    shutdown: async () => {
      await sessions.dispose();
      await session.dispose();
      await keeper.flush();
      await telemetry.shutdown();
    },
  };
}

/** "provider/model" chat goes to under the model policy; the settings' model otherwise. */
function chatModelLabel(policy: PolicySource): string {
  const settings = readModelSettings();
  const routed = routeModel('chat', settings, policy.current()?.model_policy, readProviderBaseUrls());
  if (routed.source === 'settings') return modelLabel(settings.provider, settings.model);
  return `${routed.settings.provider}/${routed.settings.model} (policy)`;
}

/** Runs `show` once per distinct key. */
function onceEach(show: (key: string) => unknown): (key: string) => void {
  const shown = new Set<string>();
  return (key) => {
    if (shown.has(key)) return;
    shown.add(key);
    void show(key);
  };
}

/**
 * Tells the user once about each SKILL.md or instruction file that could not be read (`what`:
 * the skill, the instruction file), by absolute path; the file is skipped.
 */
function skillProblemReporter(what: string): (problems: SkillProblem[]) => void {
  return fileProblemNotices((problem: SkillProblem) => {
    const file = vscode.Uri.file(problem.file);
    return { file, text: `OpenAgent skipped ${what} ${vscode.workspace.asRelativePath(file)}: ${problem.message}` };
  });
}
