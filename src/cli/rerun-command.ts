/**
 * `openagent replay ID --from N [--model M] [--provider P] [--base-url URL] [--preset NAME]
 * [--policy FILE] [--message TEXT] [--tool-result STEP=TEXT] [--yes]`: re-runs a recorded run
 * from step N with that one thing changed (core: rerun-run.ts). Steps before N come from the
 * recording; from N on the run is live, in a fresh worktree at the recorded commit (a scratch
 * copy without git) with the recorded files before N put back, its output streamed as any CLI
 * run's, its approvals asked on the terminal unless --yes. Then the comparison with the original
 * (where they part), the new conversation's id and the worktree's path.
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildSystemPrompt } from '../core/agent/system-prompt';
import { ProjectKnowledge } from '../core/knowledge/project-knowledge';
import { PresetLibrary } from '../core/knowledge/presets';
import { presetTools } from '../core/knowledge/preset-choice';
import { createLlmClient } from '../core/llm/create-llm-client';
import { HeldSecrets } from '../core/llm/held-secrets';
import { parseAgentPolicy, type AgentPolicy } from '../core/policy/agent-policy';
import { AutoApprovalGate } from '../core/policy/auto-approval';
import { layerPolicies } from '../core/policy/policy-layers';
import { toolPolicyFrom } from '../core/policy/policy-rules';
import { compareRuns } from '../core/replay/compare-runs';
import { loadRecording, RecordingProblem, type LoadedRecording } from '../core/replay/loaded-recording';
import { reapplyFileChanges } from '../core/replay/reapply-files';
import type { RecordingStore } from '../core/replay/recording';
import type { ConversationStore } from '../core/ports';
import { renderComparison } from '../core/replay/replay-report';
import { checkRerun, type RerunChange } from '../core/replay/rerun-change';
import { rerunFrom } from '../core/replay/rerun-run';
import { EnvSecretSource } from '../node/env-secret-source';
import { NodeKnowledgeFiles } from '../node/node-knowledge-files';
import { readPolicyText } from '../node/policy-text';
import { keptTeamPolicy, rerunApprovers } from './rerun-team';
import { makeRerunPlace } from '../node/rerun-place';
import { systemClock } from '../node/system-clock';
import { packageVersion } from './cli-telemetry';
import { providerBaseUrls } from './compose';
import { EventPrinter } from './event-printer';
import { terminalApprovals, toolsIn } from './place-tools';
import { Output } from './output';
import { colorWanted, createStyle } from './style';

/** The flags of a re-run, as parsed (strings: checked here). */
export interface RerunFlags {
  from: string;
  model?: string;
  provider?: string;
  'base-url'?: string;
  preset?: string;
  policy?: string;
  message?: string;
  'tool-result'?: string;
  yes?: boolean;
}

export interface RerunStreams {
  stdin?: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A flag the user must fix: exit 2. */
export class RerunUsage extends Error {}

/** What a re-run needs from the replay command: the recording, and where new recordings go. */
export interface RerunSource {
  loaded: LoadedRecording;
  /** From another machine: a recording file, or a run imported into the store. */
  imported: boolean;
  recordings(): Promise<RecordingStore>;
  /** The conversation history the new run is kept in (absent: a recording only). */
  conversations?(): Promise<ConversationStore>;
}

export async function runRerun(
  source: RerunSource,
  flags: RerunFlags,
  env: NodeJS.ProcessEnv,
  streams: RerunStreams,
): Promise<number> {
  const { loaded } = source;
  const manifest = loaded.recording.manifest;
  if (!/^\d{1,15}$/.test(flags.from.trim()))
    throw new RerunUsage(`--from needs a step number, not "${flags.from.slice(0, 40)}".`);
  const from = Number(flags.from.trim());
  const { change, policy: changedPolicy } = await changeFrom(flags, from, env);
  // Refused before anything is made: a step out of range, a change that does not apply at N.
  checkRerun(loaded, from, change);
  const imported = source.imported || (manifest as { imported?: unknown }).imported === true;
  if (imported && flags.yes)
    throw new RecordingProblem(
      'This run was imported from another machine: it never runs a live tool without asking. Re-run it without --yes.',
    );

  const heldSecrets = new HeldSecrets();
  heldSecrets.addEnvironment(env);
  const output = new Output(
    streams.stdout,
    streams.stderr,
    streams.stderr,
    createStyle(colorWanted(streams.stdout, env)),
    heldSecrets.redact,
  );
  const id = randomUUID();
  const home = env.HOME || os.homedir();
  const place = await makeRerunPlace({
    manifest,
    cwd: process.cwd(),
    baseFolder: env.OPENAGENT_WORKTREES || path.join(home, '.openagent', 'worktrees'),
    short: id.slice(0, 8),
  });
  output.error(
    place.worktree
      ? `Re-running in the worktree ${place.root} on ${place.worktree.branch} (at ${place.worktree.base.commit.slice(0, 8)}, the recorded commit).`
      : `Re-running in ${place.root}.`,
  );
  for (const notice of place.notices) output.error(notice);

  const team = keptTeamPolicy(env);
  const usual = usualPolicy(home, place.root, output, team);
  // A changed policy is tried under the team's, as the usual ones are.
  const policy = change.policy ? layerPolicies({ team, user: changedPolicy }) : usual.policy;
  const { workspace, tools } = toolsIn(place.root, policy, env);
  const approvers = rerunApprovers(env, heldSecrets, { root: place.root, policy: () => policy, workspace });
  if (change.policy) change.policy = approvers.policy(toolPolicyFrom(() => policy));
  const reapplied = await reapplyFileChanges(loaded, from, tools, workspace);
  if (reapplied.applied.length > 0)
    output.error(
      `Put back the recorded changes of ${reapplied.applied.length} file write${reapplied.applied.length === 1 ? '' : 's'} before step ${from}.`,
    );
  for (const refused of reapplied.refused)
    output.error(`Not put back: step ${refused.step} (${refused.path || 'no path'}): ${refused.reason}.`);
  for (const missing of reapplied.notReproduced) output.error(`Not reproduced: ${missing}.`);

  const { asking, reader } = terminalApprovals(streams, output, workspace);
  const approvals = approvers.gate(new AutoApprovalGate(asking, () => flags.yes === true));
  const secrets = new EnvSecretSource(env);
  const keys = new Map<string, string | undefined>();
  for (const provider of new Set([change.provider, ...manifest.models.map((entry) => entry.provider)]))
    if (provider) keys.set(provider, await secrets.getApiKey(provider));
  const printer = new EventPrinter(output);
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on('SIGINT', onSigint);
  let recordingError: unknown;
  try {
    output.error(`Replaying steps 1 to ${from - 1} from the recording; live from step ${from}.`);
    const recordings = await source.recordings();
    const history = await source.conversations?.();
    const original = await history?.getConversation(manifest.conversationId);
    const outcome = await rerunFrom(loaded, from, change, {
      ...(history
        ? {
            conversations: {
              store: history,
              settings: {
                ...(change.model ? { model: change.model } : {}),
                ...(change.provider ? { provider: change.provider } : {}),
              },
              title: `Re-run of “${original?.title ?? manifest.conversationId}” from step ${from} (${describeChange(flags)})`,
            },
          }
        : {}),
      modelClient: ({ provider, model }) => {
        const baseUrl = flags['base-url'] ?? env.OPENAGENT_BASE_URL ?? providerBaseUrls(env)[provider] ?? '';
        const setup = createLlmClient({ provider, model, baseUrl }, keys.get(provider));
        if (!setup.ok) throw new Error(setup.message);
        return setup.client;
      },
      tools,
      place: place.manifestPlace,
      ...(change.policy
        ? {}
        : {
            policy: approvers.policy(
              toolPolicyFrom(
                () => usual.policy,
                undefined,
                () => usual.broken,
              ),
            ),
          }),
      policySource: { value: policy ?? null, sources: flags.policy ? [path.resolve(flags.policy)] : [] },
      approvals,
      recordings,
      newId: () => id,
      clock: systemClock,
      product: packageVersion() ?? 'unknown',
      ...(flags.preset ? { preset: flags.preset } : {}),
      secrets: heldSecrets.matcher,
      imported,
      onEvent: (event, live) => {
        if (live) printer.print(event);
      },
      onRecordingError: (error) => (recordingError ??= error),
      signal: stop.signal,
    });
    output.newline();
    if (outcome.divergence) {
      const { step, what, expected, actual } = outcome.divergence;
      output.error(`The replay of the steps before ${from} parted from the recording at step ${step}: ${what}.`);
      output.error(`  expected: ${expected}\n  actual:   ${actual}\nNothing ran live.`);
      return 1;
    }
    for (const note of outcome.notes) output.error(`Note: ${note}`);
    if (recordingError)
      output.error(
        `The new run could not be recorded: ${recordingError instanceof Error ? recordingError.message : String(recordingError)}`,
      );
    else {
      const rerun = await loadRecording(recordings, id);
      streams.stdout.write(`\n${renderComparison(compareRuns(loaded, rerun))}`);
    }
    streams.stdout.write(`\nNew conversation: ${id}\n${place.worktree ? 'Worktree' : 'Folder'}: ${place.root}\n`);
    return outcome.wentLive && !stop.signal.aborted ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    reader?.close();
    await approvers.close();
  }
}

/** The change the flags ask for; a RerunUsage or a RecordingProblem when one cannot be used. */
async function changeFrom(
  flags: RerunFlags,
  from: number,
  env: NodeJS.ProcessEnv,
): Promise<{ change: RerunChange; policy?: AgentPolicy }> {
  const change: RerunChange = {};
  let changedPolicy: AgentPolicy | undefined;
  if (flags.model !== undefined) change.model = flags.model;
  if (flags.provider !== undefined) change.provider = flags.provider;
  if (flags.message !== undefined) change.message = { step: from, text: flags.message };
  if (flags['tool-result'] !== undefined) {
    const match = /^(\d{1,15})=([\s\S]*)$/.exec(flags['tool-result']);
    if (!match) throw new RerunUsage('--tool-result needs STEP=TEXT, e.g. --tool-result 3="file not found".');
    change.toolResult = { step: Number(match[1]), output: match[2]!, isError: false };
  }
  if (flags.policy !== undefined) {
    const read = readPolicyText(flags.policy);
    if (read.kind === 'missing') throw new RecordingProblem(`There is no policy file ${flags.policy}.`);
    if (read.kind === 'unusable') throw new RecordingProblem(`Cannot use ${flags.policy} as a policy: ${read.problem}`);
    const parsed = parseAgentPolicy(read.text);
    const problem = parsed.problems[0];
    if (!parsed.policy || problem)
      throw new RecordingProblem(
        `Cannot use ${flags.policy} as a policy: line ${(problem?.line ?? 0) + 1}: ${problem?.message ?? 'it has mistakes'}`,
      );
    const policy = parsed.policy;
    changedPolicy = policy;
    change.policy = toolPolicyFrom(() => policy);
  }
  if (flags.preset !== undefined) {
    const preset = await presetSystem(flags.preset, env);
    change.system = preset.system;
    if (preset.offersTool) change.offersTool = preset.offersTool;
  }
  return { change, ...(changedPolicy ? { policy: changedPolicy } : {}) };
}

/** The system prompt a preset makes in this folder, as the CLI builds it for a run, and its tool list. */
async function presetSystem(
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<{ system: string; offersTool?: (toolName: string) => boolean }> {
  const root = process.cwd();
  const files = new NodeKnowledgeFiles(() => root);
  const presets = new PresetLibrary(files, bundled('prompts'), () => root);
  if (!(await presets.has(name)))
    throw new RerunUsage(`There is no preset "${name.slice(0, 60)}". Presets: ${(await presets.list()).join(', ')}.`);
  const knowledge = new ProjectKnowledge({
    files,
    workspaceRoot: () => root,
    isTrusted: () => true,
    bundledSkills: bundled('skills'),
    globalMemory: path.join(env.HOME || os.homedir(), '.openagent', 'memory.md'),
  });
  const { sections } = await knowledge.load();
  const preset = await presets.load(name);
  const system = buildSystemPrompt(
    preset.text,
    { os: `${os.type()} ${os.release()}`, shell: env.SHELL ?? 'unknown', workspaceRoot: root, date: new Date() },
    sections,
  );
  return { system, ...presetTools(preset) };
}

/**
 * The user's policy under the re-run place's own (as a CLI run there would read them). One with
 * mistakes is not applied, and then every change asks, whatever --yes says (as in any CLI run).
 */
export function usualPolicy(
  home: string,
  root: string,
  output: Output,
  team?: AgentPolicy,
): { policy?: AgentPolicy; broken?: string } {
  let broken: string | undefined;
  const read = (file: string): AgentPolicy | undefined => {
    const text = readPolicyText(file);
    if (text.kind === 'missing') return undefined;
    const parsed = text.kind === 'text' ? parseAgentPolicy(text.text) : undefined;
    if (parsed?.policy) return parsed.policy;
    broken ??= file;
    output.error(
      `openagent: not applying ${file}: ${text.kind === 'unusable' ? text.problem : 'it has mistakes.'} Until it is fixed, every change asks, whatever --yes says.`,
    );
    return undefined;
  };
  const policy = layerPolicies({
    team,
    user: read(path.join(home, '.openagent', 'agent.yaml')),
    workspace: read(path.join(root, '.openagent', 'agent.yaml')),
  });
  return { ...(policy ? { policy } : {}), ...(broken ? { broken } : {}) };
}

function bundled(...segments: string[]): string {
  const candidates = [path.join(__dirname, '..', ...segments), path.join(__dirname, '..', '..', ...segments)];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}

/** The one thing changed, in a few words, for the re-run's title. */
function describeChange(flags: RerunFlags): string {
  if (flags.model !== undefined || flags.provider !== undefined)
    return `model ${[flags.provider, flags.model].filter(Boolean).join(' ')}`;
  if (flags.preset !== undefined) return `preset ${flags.preset}`;
  if (flags.policy !== undefined) return `policy ${path.basename(flags.policy)}`;
  if (flags.message !== undefined) return 'another message';
  if (flags['tool-result'] !== undefined) return 'another tool result';
  return 'nothing changed';
}
