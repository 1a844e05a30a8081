/**
 * Replay and compare in the editor (SPEC: replay and compare): "OpenAgent: Replay Conversation",
 * the developer panel's Compare tab over the store's recordings, and its "Re-run from here
 * with…" — quick picks, notifications and the editor's approval notifications around the flows
 * of src/host/panel/recorded-runs.ts (where the logic lives, tested without VS Code). A re-run
 * works in a fresh worktree at the recorded commit, in the folder the window's sessions make
 * their worktrees in.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { buildSystemPrompt } from '../core/agent/system-prompt';
import type { PresetLibrary } from '../core/knowledge/presets';
import { presetTools } from '../core/knowledge/preset-choice';
import { createLlmClient } from '../core/llm/create-llm-client';
import type { HeldSecrets } from '../core/llm/held-secrets';
import type { ConversationStore, SecretSource } from '../core/ports';
import type { ToolPolicy } from '../core/policy/approval';
import { createWorkspaceTools } from '../core/tools/builtin/workspace-tools';
import type { AnyTool } from '../core/tools/tool';
import type { Worktree } from '../core/session/worktree-port';
import type { ApprovalDetails } from '../host/approvals/approval-details';
import { NotificationApprovalGate } from '../host/approvals/notification-approval-gate';
import type { DeveloperPanel } from '../host/panel/developer-panel';
import type { CompareSource } from '../host/panel/panel-compare';
import {
  recordingsOf,
  replayConversation,
  rerunInEditor,
  storeRuns,
  type RerunFlowDeps,
  type RerunOption,
} from '../host/panel/recorded-runs';
import { filesExcludeGlobs, readConnection, readModelSettings, readProviderBaseUrls } from '../host/settings';
import { ChildProcessShell } from '../node/child-process-shell';
import { NodeWorkspace } from '../node/node-workspace';
import { makeRerunPlace } from '../node/rerun-place';
import { RipgrepSearch } from '../node/ripgrep-search';
import { OsSandbox, type SandboxSettings } from '../node/sandbox/os-sandbox';
import { systemClock } from '../node/system-clock';
import { VscodeWorkspace } from '../host/workspace/vscode-workspace';
import { RecordingProblem } from '../core/replay/loaded-recording';
import { randomUUID } from 'node:crypto';
import type { EditorTeamApprovals } from './team-approvals-wiring';

export interface ReplayWiringDeps {
  openStore(): Promise<ConversationStore>;
  developerPanel: DeveloperPanel;
  approvalDetails: ApprovalDetails;
  presets: PresetLibrary;
  secrets: SecretSource;
  heldSecrets: HeldSecrets;
  toolPolicy?: ToolPolicy;
  /** Named approvers, as every session of the window has them. */
  teamApprovals?: EditorTeamApprovals;
  sandbox: Omit<SandboxSettings, 'root'>;
  ripgrep: string;
  worktreesFolder(): string;
  /** Adds a re-run's worktree to the window's Sessions list, showing its conversation. */
  keepAsSession?(name: string, worktree: Worktree, conversationId: string): Promise<void>;
  workspaceRoot(): string | undefined;
  product: string;
}

/** Sets the panel's Compare tab up and returns the palette command. */
export function wireReplay(deps: ReplayWiringDeps): Record<string, () => unknown> {
  const runs = storeRuns(deps.openStore);
  const source: CompareSource = { ...runs, rerun: (loaded, step) => rerunHere(loaded, step) };
  deps.developerPanel.compareWith(source);

  const toolsIn = (root: string): AnyTool[] => {
    const sandbox = new OsSandbox({ ...deps.sandbox, root: () => root });
    return createWorkspaceTools({
      files: new NodeWorkspace(root),
      search: new RipgrepSearch(deps.ripgrep, filesExcludeGlobs, () => root),
      shell: new ChildProcessShell(undefined, sandbox),
      cwd: () => root,
      knowledge: [],
    });
  };

  const rerunHere: NonNullable<CompareSource['rerun']> = async (loaded, step) => {
    const providers = new Set([
      readModelSettings().provider,
      ...loaded.recording.manifest.models.map((m) => m.provider),
    ]);
    const keys = new Map<string, string | undefined>();
    for (const provider of providers) keys.set(provider, await deps.secrets.getApiKey(provider).catch(() => undefined));
    const workspaceTools = new Map<string, NodeWorkspace>();
    // The place's folder once made: the approval details show its files.
    let liveRoot: string | undefined;
    return rerunInEditor(loaded, step, {
      chooseChange: (options) => chooseChange(options, step),
      models: () => configuredModels(deps.secrets),
      presets: () => deps.presets.list(),
      presetSystem: async (name) => {
        const preset = await deps.presets.load(name);
        const system = buildSystemPrompt(preset.text, {
          os: `${os.type()} ${os.release()}`,
          shell: vscode.env.shell || process.env.SHELL || 'unknown',
          workspaceRoot: loaded.recording.manifest.place.root,
          date: new Date(),
        });
        return { system, ...presetTools(preset) };
      },
      place: (manifest, short) =>
        makeRerunPlace({
          manifest,
          cwd: deps.workspaceRoot() ?? manifest.place.root,
          baseFolder: deps.worktreesFolder(),
          short,
        }),
      tools: (root) => {
        const workspace = workspaceTools.get(root) ?? new NodeWorkspace(root);
        workspaceTools.set(root, workspace);
        liveRoot = root;
        return { tools: toolsIn(root), workspace };
      },
      modelClient: ({ provider, model }) => {
        const settings = readModelSettings();
        const baseUrl = provider === settings.provider ? settings.baseUrl : (readProviderBaseUrls()[provider] ?? '');
        const setup = createLlmClient({ provider, model, baseUrl }, keys.get(provider), readConnection());
        if (!setup.ok) throw new RecordingProblem(setup.message);
        return setup.client;
      },
      // The live part's questions are the editor's usual approval notifications.
      approvals: new NotificationApprovalGate({
        showDetails: deps.approvalDetails.showIn(() => (liveRoot ? new VscodeWorkspace(liveRoot) : undefined)),
        sessionName: `Re-run from step ${step}`,
      }),
      ...(deps.toolPolicy ? { policy: deps.toolPolicy } : {}),
      ...(deps.teamApprovals ? { guard: guardWith(deps.teamApprovals) } : {}),
      conversations: () => deps.openStore(),
      ...(deps.keepAsSession ? { keepAsSession: deps.keepAsSession } : {}),
      recordings: async () => {
        const found = recordingsOf(await deps.openStore());
        if (!found) throw new RecordingProblem('This store keeps no recordings: the re-run could not be recorded.');
        return found;
      },
      newId: randomUUID,
      clock: systemClock,
      product: deps.product,
      secrets: deps.heldSecrets.matcher,
      tell: (level, text) =>
        void (level === 'warning'
          ? vscode.window.showWarningMessage(`OpenAgent: ${text}`)
          : vscode.window.showInformationMessage(`OpenAgent: ${text}`)),
      progress: (title, work) =>
        Promise.resolve(
          vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: `OpenAgent: ${title}` },
            work,
          ),
        ),
    });
  };

  return {
    'openagent.replayConversation': () =>
      replayConversation({
        runs,
        pick: async (choices) => {
          const picked = await vscode.window.showQuickPick(
            choices.map((choice) => ({
              label: choice.recorded ? choice.title : `${choice.title} (no recording)`,
              description: `${new Date(choice.createdAt).toLocaleString()} · ${choice.id.slice(0, 8)}`,
              id: choice.id,
            })),
            { placeHolder: 'Replay a recorded conversation with recorded tools (nothing is touched)' },
          );
          return picked?.id;
        },
        currentTools: () => toolsIn(deps.workspaceRoot() ?? os.tmpdir()),
        ...(deps.toolPolicy ? { policy: deps.toolPolicy } : {}),
        tell: async ({ level, text }) => {
          const show = 'Show in Developer Panel';
          const answer =
            level === 'warning'
              ? await vscode.window.showWarningMessage(`OpenAgent: ${text}`, show)
              : await vscode.window.showInformationMessage(`OpenAgent: ${text}`, show);
          return answer === show;
        },
        showCompare: (a, b, replay) => deps.developerPanel.showCompare(a, b, replay),
      }),
  };
}

/** The quick pick of what to change (and the input box for a message). */
async function chooseChange(
  options: RerunOption[],
  step: number,
): Promise<{ option: RerunOption; message?: string } | undefined> {
  const picked = await vscode.window.showQuickPick(
    options.map((option) => ({ label: option.label, description: option.description ?? '', option })),
    { placeHolder: `Re-run from step ${step} with…` },
  );
  if (!picked) return undefined;
  if (picked.option.kind !== 'message') return { option: picked.option };
  const message = await vscode.window.showInputBox({ prompt: `The message to send at step ${step} instead` });
  return message === undefined ? undefined : { option: picked.option, message };
}

/** The configured model, and the models its provider lists (asked briefly). */
async function configuredModels(secrets: SecretSource): Promise<string[]> {
  const settings = readModelSettings();
  const setup = createLlmClient(
    { ...settings, model: settings.model || 'probe' },
    await secrets.getApiKey(settings.provider).catch(() => undefined),
  );
  const listed = setup.ok ? await setup.client.listModels(AbortSignal.timeout(5_000)).catch(() => []) : [];
  return [...new Set([settings.model, ...listed].filter((model) => model.trim() !== ''))];
}

/** A re-run's live calls go through the named approvers like a session's, in the re-run's folder. */
function guardWith(team: EditorTeamApprovals): NonNullable<RerunFlowDeps['guard']> {
  return (root, { approvals, policy }) => ({
    approvals: team.gate(approvals, { root: () => root, workspace: () => new VscodeWorkspace(root) }),
    ...(policy ? { policy: team.policy(policy, () => root) } : {}),
  });
}
