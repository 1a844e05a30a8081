/**
 * The CLI's composition root, mirroring src/extension.ts with Node adapters: a
 * ConversationSession over the folder the CLI runs in, with file, search (ripgrep on the PATH),
 * bash (a child process), background-job, task, memory and skill tools — not the code
 * navigation ones, which need an editor — the SqlJsStore the extension uses, presets, project
 * knowledge, and the policy (~/.openagent/agent.yaml under the folder's .openagent/agent.yaml):
 * tool rules, model routes and budgets.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationSession } from '../core/session/conversation-session';
import { projectSystemPrompt } from '../core/agent/project-system-prompt';
import { ProjectKnowledge } from '../core/knowledge/project-knowledge';
import type { ModelSettings } from '../core/llm/create-llm-client';
import type { AgentPolicy } from '../core/policy/agent-policy';
import { PolicyFile } from '../core/policy/policy-file';
import type { ApprovalGate } from '../core/policy/approval';
import { policyOffers, toolPolicyFrom } from '../core/policy/policy-rules';
import { explainPolicy, layerOf, layerPolicies, type PolicyDecision } from '../core/policy/policy-layers';
import { BudgetGuard, type BudgetPolicy } from '../core/policy/budget';
import { storeLedger } from '../core/policy/store-ledger';
import type { TeamStandings } from '../core/policy/budget-status';
import type { CommandSandbox, ConversationStore, SandboxStatus, WorkspaceFiles } from '../core/ports';
import { createWorkspaceTools } from '../core/tools/builtin/workspace-tools';
import { ChildProcessRunner } from '../node/child-process-runner';
import { ChildProcessShell } from '../node/child-process-shell';
import { OsSandbox } from '../node/sandbox/os-sandbox';
import { cliSharedHooks, type CliHookDeps } from './shared-hooks-cli';
import { cliReviewer, workspaceReviewerWarning } from './reviewer-cli';
import { SecretFiles } from '../node/secret-files';
import { protectedPlaces } from '../node/sandbox/protected-set';
import { stricterSandbox, type SandboxMode } from '../core/policy/sandbox-modes';
import { EnvSecretSource } from '../node/env-secret-source';
import { FileTaskStorage } from '../node/file-task-storage';
import { FileTranscriptSink } from '../node/file-transcript-sink';
import { NodeKnowledgeFiles } from '../node/node-knowledge-files';
import { cliImageFiles, imageMentionResolver, type MentionResolver } from './cli-images';
import { NodeWorkspace } from '../node/node-workspace';
import { readPolicyText } from '../node/policy-text';
import { webFetchTool } from '../node/web/web-fetch-tool';
import { visibleText } from '../core/text/visible-text';
import { findRipgrep, RipgrepSearch } from '../node/ripgrep-search';
import { systemClock } from '../node/system-clock';
import { PresetLibrary } from '../core/knowledge/presets';
import { cliPresetChoice } from './cli-presets';
import { StoreOpener } from '../kit/store-opener';
import type { HeldSecrets } from '../core/llm/held-secrets';
import { sendingToTeam } from '../kit/team-opener';
import { CliTeam } from './cli-team';
import { cliTeamApprovals } from './team-approvals-wiring';
import { CliMcp } from './cli-mcp';
import { packageVersion, startCliTelemetry } from './cli-telemetry';
import { gitHead } from '../node/git-head';
import { cliImages } from './cli-images';
import type { AcceptsImagesChoice } from '../core/images/accepts-images';

/** What the user can change during the session (/model, /preset), read at every prompt. */
export interface CliSettings extends ModelSettings {
  preset: string;
  maxTurns: number | undefined;
  maxOutputTokens?: number;
  contextWindow?: number;
  /** Warn before a model call estimated above this many USD; 0 or unset: never. */
  callCostWarningUsd?: number;
  /** Seconds an answer may go without progress. */
  idleTimeout?: number;
  /** Seconds a local server's window and token count are waited for. */
  probeTimeout?: number;
  /** The user's sandbox choice (--sandbox); a policy may make it stricter. */
  sandbox?: SandboxMode;
  /** Whether the model takes images (--images): auto decides by its name (cli-images.ts). */
  images?: AcceptsImagesChoice;
}

export interface CliDeps {
  settings: CliSettings;
  workspaceRoot: string;
  storeDirectory: string;
  env: NodeJS.ProcessEnv;
  /** Every secret the product holds, redacted from every sink (main.ts fills it from `env`). */
  heldSecrets: HeldSecrets;
  /** The gate that asks about tool calls in `workspace` (it shows their diffs). */
  approvals(workspace: WorkspaceFiles): ApprovalGate;
  /**
   * Asks one line on the terminal (a repository's hook, an MCP server to allow, its inputs);
   * absent without a terminal.
   */
  readLine?: CliHookDeps['readLine'];
  /** Something the user should know that is not an error of the run (a policy file with mistakes). */
  warn(message: string): void;
}

export interface CliContext {
  session: ConversationSession;
  settings: CliSettings;
  presets: PresetLibrary;
  workspace: NodeWorkspace;
  /** Whether commands run confined, and why not. */
  sandbox: CommandSandbox;
  /** The sandbox's status with the policies read first (their `sandbox:` counts). */
  sandboxStatus(): SandboxStatus;
  /** The store, opened on first use; undefined when it cannot be opened (already reported). */
  store(): Promise<ConversationStore | undefined>;
  /** The budgets in force (for /cost). */
  budgetPolicy(): BudgetPolicy | undefined;
  /** Where the team database's limits stand, when a team is configured (for /cost). */
  teamStandings(): TeamStandings | undefined;
  /** Ends the run, saves what is queued and closes the store. */
  close(): Promise<void>;
  /** `@image:path` in a prompt (issue 36); other mentions stay as typed. */
  resolveMention: MentionResolver;
}

export function createCliContext(deps: CliDeps): CliContext {
  const { settings, workspaceRoot, storeDirectory } = deps;
  const workspace = new NodeWorkspace(workspaceRoot);
  const knowledgeFiles = new NodeKnowledgeFiles(() => workspaceRoot);
  // The CLI runs where the user started it: that folder's own presets count.
  const presets = new PresetLibrary(knowledgeFiles, bundledFile('prompts'), () => workspaceRoot);
  // The preset of each new conversation; a custom agent's model and tools with it.
  const presetChoice = cliPresetChoice(
    presets,
    () => settings.preset,
    deps.env,
    () => providerBaseUrls(deps.env),
    deps.warn,
  );
  const userModel = () => ({ provider: settings.provider, model: settings.model, baseUrl: settings.baseUrl });
  const knowledge = new ProjectKnowledge({
    files: knowledgeFiles,
    workspaceRoot: () => workspaceRoot,
    // The user started the CLI in this folder: it is trusted as they trust their own shell.
    isTrusted: () => true,
    bundledSkills: bundledFile('skills'),
    globalMemory: path.join(os.homedir(), '.openagent', 'memory.md'),
  });

  // Store failures are told once each; the session goes on without saving.
  const stores = new StoreOpener({
    directory: storeDirectory,
    wasmPath: sqlWasmPath(),
    secrets: deps.heldSecrets.matcher,
    tell: (_severity, message) => deps.warn(`openagent: ${message}`),
  });
  const store = stores.openOrReport;

  const team = new CliTeam({ env: deps.env, root: workspaceRoot, storeDirectory, outbox: store, warn: deps.warn });
  const policy = new CliPolicy(
    workspaceRoot,
    os.homedir(),
    deps.warn,
    () => team.policy(),
    () => team.policyBroken(),
  );
  const budget = new BudgetGuard({
    policy: () => policy.current?.budget,
    ledger: storeLedger(store),
    shared: () => team.current()?.budget,
    now: () => Date.now(),
  });
  const ripgrep = new RipgrepSearch(
    findRipgrep([]),
    () => [],
    () => workspaceRoot,
  );
  const sandbox = new OsSandbox(
    {
      mode: () => stricterSandbox(settings.sandbox ?? 'auto', policy.current?.sandbox) ?? 'auto',
      network: () => policy.current?.commands?.network === true,
      passEnv: () => policy.current?.commands?.pass_env ?? [],
      root: () => workspaceRoot,
      hidden: () => [storeDirectory],
    },
    { env: deps.env },
  );
  const shell = new ChildProcessShell(undefined, sandbox);
  const { readLine } = deps;
  const mcp = new CliMcp({
    ...deps,
    version: packageVersion() ?? 'unknown',
    ask: readLine && ((question) => readLine(question).then((line) => (line.kind === 'line' ? line.text : undefined))),
  });
  const approvers = cliTeamApprovals(deps, { root: workspaceRoot, policy: () => policy.current, team, workspace });

  const images = cliImages(settings);
  const session = new ConversationSession({
    readSettings: () => presetChoice.settings(userModel()),
    acceptsImages: images.acceptsImages,
    modelPolicy: () => policy.current?.model_policy,
    providerBaseUrls: () => providerBaseUrls(deps.env),
    budget,
    readLimits: () => ({
      maxTurns: settings.maxTurns,
      maxOutputTokens: settings.maxOutputTokens,
      contextWindow: settings.contextWindow,
      callCostWarningUsd: settings.callCostWarningUsd || undefined,
    }),
    readConnection: () => ({
      ...(settings.idleTimeout ? { idleTimeoutMs: settings.idleTimeout * 1000 } : {}),
      ...(settings.probeTimeout ? { probeTimeoutMs: settings.probeTimeout * 1000 } : {}),
    }),
    secrets: new EnvSecretSource(deps.env),
    heldSecrets: deps.heldSecrets,
    store: async () => sendingToTeam(await stores.open(), () => team.kick()),
    onStoreError: stores.reportError,
    teamStamp: () => team.stamp(),
    transcripts: new FileTranscriptSink(path.join(storeDirectory, 'transcripts')),
    approvals: approvers.gate(deps.approvals(workspace)),
    hooks: cliSharedHooks({
      workspaceRoot,
      storeDirectory,
      launcher: sandbox,
      warn: deps.warn,
      readLine: deps.readLine,
    }),
    connectedTools: () => mcp.tools(),
    clock: systemClock,
    newId: randomUUID,
    isTrusted: () => true,
    processRunner: new ChildProcessRunner(undefined, sandbox),
    sandbox,
    secretFiles: new SecretFiles().find,
    protectedPaths: protectedPlaces,
    workspaceRoot: () => workspaceRoot,
    workspace: () => workspace,
    taskStorage: new FileTaskStorage(path.join(storeDirectory, 'tasks')),
    // Every run is recorded for replay: what it depended on that only the CLI knows.
    recording: {
      product: packageVersion() ?? 'unknown',
      head: gitHead,
      policy: () => ({
        value: policy.current ?? null,
        sources: [
          path.join(os.homedir(), '.openagent', 'agent.yaml'),
          path.join(workspaceRoot, '.openagent', 'agent.yaml'),
        ],
      }),
    },
    prepare: async () => {
      await team.refresh();
      policy.refresh();
      await presetChoice.prepare(userModel());
    },
    toolPolicy: approvers.policy({
      ...toolPolicyFrom(
        () => policy.current,
        (rule) => layerOf(policy.decisions, rule),
        () => policy.broken(),
      ),
      offers: (name: string) => policyOffers(policy.current, name),
      review: cliReviewer(
        () => policy.current,
        deps.heldSecrets,
        () => team.stamp()?.member,
      ),
    }),
    // `tracked` is the checkpointed workspace: file tools must write through it.
    tools: (tracked) => [
      ...createWorkspaceTools({
        files: tracked ?? workspace,
        search: ripgrep,
        shell,
        cwd: () => workspaceRoot,
        knowledge: [...knowledge.tools(), webFetchTool(() => policy.current)],
        images: images.imageFiles,
      }),
      ...(team.current()?.tools() ?? []),
    ],
    systemPrompt: () =>
      projectSystemPrompt(
        {
          knowledge,
          preset: () => presetChoice.preset(userModel),
          host: { os: `${os.type()} ${os.release()}`, shell: deps.env.SHELL ?? 'unknown' },
          report: ({ skills, instructions }) => {
            for (const problem of skills) deps.warn(`openagent: skipped the skill ${problem.file}: ${problem.message}`);
            for (const problem of instructions)
              deps.warn(`openagent: instruction file ${problem.file}: ${problem.message}`);
          },
        },
        workspaceRoot,
      ),
  });

  session.onEvent((event) => approvers.record(event));
  // OpenTelemetry export, when the environment names a collector.
  const telemetry = startCliTelemetry(session, {
    env: deps.env,
    settings,
    routeBaseUrls: providerBaseUrls(deps.env),
    warn: deps.warn,
  });

  return {
    session,
    resolveMention: imageMentionResolver(() => workspace, cliImageFiles(settings)),
    sandbox,
    settings,
    presets,
    workspace,
    store,
    teamStandings: () => team.current()?.standings,
    budgetPolicy: () => {
      policy.refresh();
      return policy.current?.budget;
    },
    sandboxStatus: () => {
      policy.refresh();
      return sandbox.status();
    },
    close: async () => {
      await session.dispose();
      await mcp.close();
      await team.close();
      await approvers.close();
      await telemetry?.shutdown();
      await stores.close();
    },
  };
}

/**
 * The policy: the user's defaults in ~/.openagent/agent.yaml with the folder's
 * .openagent/agent.yaml over them (merged as in the editor: deny lists and budgets add up), read
 * before each new conversation. A file with mistakes is not applied, and the user is told once
 * per version of it.
 */
export class CliPolicy {
  current: AgentPolicy | undefined;
  /** Which layer decided each rule in force. */
  decisions: PolicyDecision[] = [];
  private readonly files: Array<{ path: string; reader: PolicyFile }>;
  private readonly ignoredReviewer: ReturnType<typeof workspaceReviewerWarning>;

  constructor(
    root: string,
    home: string,
    warn: (message: string) => void,
    private readonly team: () => AgentPolicy | undefined,
    private readonly teamBroken: () => boolean = () => false,
  ) {
    const userFile = path.join(home, '.openagent', 'agent.yaml');
    const workspaceFile = path.join(root, '.openagent', 'agent.yaml');
    // Started in the home folder: the one file is the user's.
    const paths = path.resolve(workspaceFile) === path.resolve(userFile) ? [userFile] : [userFile, workspaceFile];
    this.ignoredReviewer = workspaceReviewerWarning(warn);
    this.files = paths.map((file) => ({
      path: file,
      reader: new PolicyFile((problems) => {
        const first = problems[0]!;
        const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
        // One line: the file, the problem, and what holds until it is fixed.
        warn(
          `openagent: not applying ${file}: line ${first.line + 1}: ${oneLine(first.message)}${more} ` +
            'Until it is fixed, every change asks, whatever --yes, auto-approve or a rule says.',
        );
      }),
    }));
  }

  refresh(): void {
    const [user, workspace] = this.files.map(({ path: file, reader }) => {
      const read = readPolicyText(file);
      if (read.kind === 'unusable') return reader.unusable(read.problem);
      return reader.read(read.kind === 'text' ? read.text : undefined);
    });
    const layers = { team: this.team(), user, workspace };
    if (this.files[1]) this.ignoredReviewer(workspace, this.files[1].path);
    this.current = layerPolicies(layers);
    this.decisions = explainPolicy(layers, this.current);
  }

  /** The first policy that is there but not applied, if any (see toolPolicyFrom). */
  broken(): string | undefined {
    return this.files.find(({ reader }) => reader.broken)?.path ?? (this.teamBroken() ? 'the team policy' : undefined);
  }
}

function oneLine(message: string): string {
  const text = visibleText(message, { keepNewlines: false });
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * Addresses of other providers for model routes, from OPENAGENT_<PROVIDER>_BASE_URL (e.g.
 * OPENAGENT_OLLAMA_BASE_URL, OPENAGENT_OPENAI_COMPATIBLE_BASE_URL).
 */
export function providerBaseUrls(env: NodeJS.ProcessEnv): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^OPENAGENT_([A-Z0-9_]+)_BASE_URL$/.exec(name);
    if (match && value && /^https?:\/\//.test(value)) urls[match[1]!.toLowerCase().replace(/_/g, '-')] = value;
  }
  return urls;
}

/** The sql.js WebAssembly: beside dist/cli.js when built, in node_modules when run from src/. */
function sqlWasmPath(): string {
  const candidates = [
    path.join(__dirname, 'sql-wasm.wasm'),
    path.join(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}

/** Bundled folders (prompts/, skills/) sit beside dist/ when built, and two levels up from src/cli. */
export function bundledFile(...segments: string[]): string {
  const candidates = [path.join(__dirname, '..', ...segments), path.join(__dirname, '..', '..', ...segments)];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}
