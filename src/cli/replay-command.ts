/**
 * `openagent replay <conversation> [--until STEP] [--json]` replays a recorded run with recorded
 * tools (the loop, policy and approvals run for real; the world is not touched): exit 0 when it
 * reproduces the run, 1 with the first divergence. `openagent compare A B [--json]` sets two
 * recorded runs side by side. A conversation is named by its id (or the start of it, as /resume
 * takes it) in the user's store, or by the path of a recording file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkspaceTools } from '../core/tools/builtin/workspace-tools';
import type { AnyTool } from '../core/tools/tool';
import { compareRuns } from '../core/replay/compare-runs';
import {
  loadRecording,
  prepareRecording,
  RecordingProblem,
  type LoadedRecording,
} from '../core/replay/loaded-recording';
import type { ContentRef, RecordingStore } from '../core/replay/recording';
import { renderComparison, renderReplay } from '../core/replay/replay-report';
import { replayRun } from '../core/replay/replay-run';
import type { ConversationStore } from '../core/ports';
import { NodeWorkspace } from '../node/node-workspace';
import { StoreOpener } from '../kit/store-opener';
import { checkRunExport } from '../core/replay/run-import';
import { RUN_EXPORT_FORMAT } from '../core/replay/run-export';
import { visibleText } from '../core/text/visible-text';
import { checkFolder, renderCheck } from './replay-check';
import { resolveConversationId, sqlWasmPath } from './replay-store';
import { readExportFile } from './run-share-command';
import { WorktreeError } from '../core/session/worktree-port';
import { runRerun, RerunUsage } from './rerun-command';
import { parseSubcommand } from './subcommand-args';
import { runLiveReplay } from './replay-live-command';
import { ScratchCopyError } from '../node/live-replay-place';

/** The flags of a re-run (`--from` and what it changes). */
const RERUN_OPTIONS = {
  from: { type: 'string' },
  model: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  preset: { type: 'string' },
  policy: { type: 'string' },
  message: { type: 'string' },
  'tool-result': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
} as const;
const RERUN_FLAGS = ['model', 'provider', 'base-url', 'preset', 'policy', 'message', 'tool-result', 'yes'] as const;

export const REPLAY_USAGE = `Usage:
  openagent replay <conversation> [--until STEP] [--json] [--store DIR]
      replays a recorded run with recorded tools: the loop, policy and approvals run for real,
      no tool touches anything. Exit 0 when it reproduces the run, 1 at the first divergence.
  openagent replay <conversation> --live-tools [--until STEP] [--json] [--yes]
      replays it with the recorded model answers but the tools run for real, in a new worktree
      at the recorded commit (a scratch copy without git), approvals asked as usual: each tool
      result and changed file against the recorded one. Exit 0 when the world answered the same.
  openagent replay --check DIR [--json]
      replays every exported run in DIR (files from export-run) with recorded tools against
      this folder's prompt, presets, tools and policy: a table, exit 1 if any run diverges.
  openagent replay <conversation> --from STEP [--model M] [--provider P] [--base-url URL]
      [--preset NAME] [--policy FILE] [--message TEXT] [--tool-result STEP=TEXT] [--yes]
      re-runs it from STEP with that changed: the steps before come from the recording, the
      rest runs live in a new worktree at the recorded commit (approvals asked unless --yes);
      then the two runs compared, the new conversation's id and the worktree's path.
  openagent compare <A> <B> [--json] [--store DIR]
      two recorded runs side by side: steps, tool calls, approvals, files, tokens, cost, time.

A conversation is its id or the start of it (as /resume takes it), a recording file, or an
exported run (export-run).`;

/** Recording files larger than this are refused before they are read. */
const MAX_RECORDING_FILE_BYTES = 256 * 1024 * 1024;

export interface ReplayStreams {
  /** For a re-run's approvals (asked only on a terminal). */
  stdin?: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface ReplayCommandDeps {
  /** Opens the user's store (tests may give their own). */
  openStore?: (directory: string) => Promise<ConversationStore>;
  /** The folder the product's tools would work in (for their traits only: none runs). */
  workspaceRoot?: string;
}

/** Runs `openagent replay …` or `openagent compare …` (`argv` after the command's name). */
export async function runReplayCommand(
  command: 'replay' | 'compare',
  argv: string[],
  env: NodeJS.ProcessEnv,
  streams: ReplayStreams,
  deps: ReplayCommandDeps = {},
): Promise<number> {
  const fail = (message: string, code = 1) => {
    streams.stderr.write(`openagent ${command}: ${message}\n`);
    return code;
  };
  const parsed = parseSubcommand(
    argv,
    {
      until: { type: 'string' },
      check: { type: 'string' },
      json: { type: 'boolean' },
      'live-tools': { type: 'boolean' },
      ...RERUN_OPTIONS,
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    REPLAY_USAGE,
  );
  if (parsed.kind === 'problem') return fail(parsed.message, 2);
  if (parsed.kind === 'help') {
    streams.stdout.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  const { values, positionals } = parsed;
  if (values.check !== undefined) {
    if (command !== 'replay' || positionals.length > 0 || values.until !== undefined || values['live-tools'])
      return fail(`--check takes a folder and nothing else.\n\n${REPLAY_USAGE}`, 2);
    return runCheck(values.check, values.json === true, env, streams, deps.workspaceRoot ?? process.cwd());
  }
  const wanted = command === 'replay' ? 1 : 2;
  if (positionals.length !== wanted)
    return fail(`${command === 'replay' ? 'name one conversation' : 'name two conversations'}.\n\n${REPLAY_USAGE}`, 2);
  if (command === 'compare' && values.until !== undefined) return fail('--until is for replay only.', 2);
  const liveTools = values['live-tools'] === true;
  if (liveTools && (command === 'compare' || values.from !== undefined))
    return fail('--live-tools replays a recorded run: it takes neither --from nor a second run.', 2);
  // --yes approves a live replay's tools too (refused for an imported run, as a re-run refuses it).
  const rerunFlag = RERUN_FLAGS.find((flag) => values[flag] !== undefined && !(liveTools && flag === 'yes'));
  if (rerunFlag && (command === 'compare' || values.from === undefined))
    return fail(`--${rerunFlag} is for a re-run: give --from STEP too.`, 2);
  if (values.from !== undefined && (values.until !== undefined || values.json))
    return fail('--from re-runs live: it takes neither --until nor --json.', 2);
  let until: number | undefined;
  if (values.until !== undefined) {
    if (!/^\d{1,15}$/.test(values.until.trim()))
      return fail(`--until needs a step number, not "${values.until.slice(0, 40)}".`, 2);
    until = Number(values.until.trim());
  }
  const storeDirectory = path.resolve(
    values.store ?? (env.OPENAGENT_STORE || path.join(os.homedir(), '.openagent', 'store')),
  );
  const sources = new RecordingSources(storeDirectory, deps.openStore);
  try {
    if (command === 'compare') {
      const [a, b] = [await sources.load(positionals[0]!), await sources.load(positionals[1]!)];
      const comparison = compareRuns(a, b);
      streams.stdout.write(values.json ? `${JSON.stringify(comparison, null, 2)}\n` : renderComparison(comparison));
      return 0;
    }
    const loaded = await sources.load(positionals[0]!);
    if (values.from !== undefined)
      return await runRerun(
        {
          loaded,
          imported: sources.imported.has(loaded.recording.manifest.conversationId),
          recordings: () => sources.writable(),
          conversations: () => sources.conversations(),
        },
        { ...values, from: values.from },
        env,
        streams,
      );
    if (liveTools)
      return await runLiveReplay(
        { loaded, imported: sources.imported.has(loaded.recording.manifest.conversationId) },
        { ...(until !== undefined ? { until } : {}), json: values.json === true, yes: values.yes === true },
        env,
        streams,
      );
    const outcome = await replayRun(
      loaded,
      { currentTools: productTools(deps.workspaceRoot ?? process.cwd()) },
      { until },
    );
    const id = loaded.recording.manifest.conversationId;
    if (values.json) {
      const { events: _events, ...report } = outcome;
      streams.stdout.write(`${JSON.stringify({ conversationId: id, ...report }, null, 2)}\n`);
    } else streams.stdout.write(renderReplay(id, outcome));
    return outcome.reproduced ? 0 : 1;
  } catch (error) {
    if (error instanceof RerunUsage) return fail(error.message, 2);
    if (error instanceof RecordingProblem || error instanceof WorktreeError || error instanceof ScratchCopyError)
      return fail(error.message);
    throw error;
  } finally {
    await sources.close();
  }
}

/** `replay --check DIR`: exit 0 when every run reproduces, 1 otherwise. */
async function runCheck(
  folder: string,
  json: boolean,
  env: NodeJS.ProcessEnv,
  streams: ReplayStreams,
  root: string,
): Promise<number> {
  try {
    const rows = await checkFolder(folder, {
      workspaceRoot: root,
      currentTools: productTools(root),
      env,
      warn: (message) => streams.stderr.write(`openagent replay: ${message}\n`),
    });
    streams.stdout.write(json ? `${JSON.stringify(rows, null, 2)}\n` : renderCheck(rows));
    return rows.every((row) => row.result === 'reproduced') ? 0 : 1;
  } catch (error) {
    if (!(error instanceof RecordingProblem)) throw error;
    streams.stderr.write(`openagent replay: ${visibleText(error.message)}\n`);
    return 1;
  }
}

/**
 * The product's own tools, for their traits (read-only, needs approval, paths, commands): built
 * over this folder but never run — a recorded tool returns what was recorded.
 */
function productTools(root: string): AnyTool[] {
  const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('Not available in a replay.')) });
  return createWorkspaceTools({
    files: new NodeWorkspace(root),
    search: unused as never,
    shell: unused as never,
    cwd: () => root,
    knowledge: [],
  });
}

/** Where a named recording comes from: a recording file, or the user's store. */
class RecordingSources {
  private store: Promise<ConversationStore> | undefined;
  private opener: StoreOpener | undefined;

  constructor(
    private readonly directory: string,
    private readonly openStore: ((directory: string) => Promise<ConversationStore>) | undefined,
  ) {}

  /** Conversations loaded that came from elsewhere: a recording file, or a run imported into the store. */
  readonly imported = new Set<string>();

  async load(name: string): Promise<LoadedRecording> {
    if (looksLikeFile(name)) {
      const loaded = await loadRecordingFile(name);
      this.imported.add(loaded.recording.manifest.conversationId);
      return loaded;
    }
    const store = await this.openedStore();
    const recordings = recordingsOf(store);
    if (!recordings)
      throw new RecordingProblem(
        `The store in ${this.directory} keeps no recordings: this OpenAgent records none yet.`,
      );
    const id = await this.resolveId(store, name);
    const loaded = await loadRecording(recordings, id);
    // Marked by the import (settings.importedRun): its recorded approvals are not the user's.
    const mark = (await store.getConversation(id))?.settings.importedRun as { originalId?: unknown } | undefined;
    if (typeof mark === 'object' && mark !== null && typeof mark.originalId === 'string') this.imported.add(id);
    return loaded;
  }

  /** Where a re-run is kept as a conversation: the user's store. */
  conversations(): Promise<ConversationStore> {
    return this.openedStore();
  }

  /** Where a re-run's new recording goes: the user's store. */
  async writable(): Promise<RecordingStore> {
    const recordings = recordingsOf(await this.openedStore());
    if (!recordings)
      throw new RecordingProblem(
        `The store in ${this.directory} keeps no recordings: the re-run could not be recorded.`,
      );
    return recordings;
  }

  private openedStore(): Promise<ConversationStore> {
    if (this.openStore) return (this.store ??= this.openStore(this.directory));
    if (!fs.existsSync(this.directory)) throw new RecordingProblem(`There is no store in ${this.directory}.`);
    this.opener ??= new StoreOpener({
      directory: this.directory,
      wasmPath: sqlWasmPath(),
      tell: () => undefined,
    });
    return (this.store ??= this.opener.open());
  }

  private resolveId(store: ConversationStore, name: string): Promise<string> {
    return resolveConversationId(store, name);
  }

  async close(): Promise<void> {
    if (this.opener) await this.opener.close();
    else if (this.store) await (await this.store.catch(() => undefined))?.close();
  }
}

function looksLikeFile(name: string): boolean {
  return name.endsWith('.json') || name.includes('/') || name.includes(path.sep);
}

/** A recording file: `{ "recording": RunRecording, "content": { "sha256:…": value } }`. */
async function loadRecordingFile(file: string): Promise<LoadedRecording> {
  let size: number;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new RecordingProblem(`${file} is not a file.`);
    size = stat.size;
  } catch (error) {
    if (error instanceof RecordingProblem) throw error;
    throw new RecordingProblem(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  if (size > MAX_RECORDING_FILE_BYTES)
    throw new RecordingProblem(`${file} is ${Math.round(size / 1024 / 1024)} MB: larger than a recording file may be.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RecordingProblem(
      `${file} is not a recording file: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // An exported run (export-run) is checked as an import checks it, and replayed without storing it.
  if ((parsed as { format?: unknown } | null)?.format === RUN_EXPORT_FORMAT)
    return (await checkRunExport(await readExportFile(file))).loaded;
  const shaped = parsed as { recording?: unknown; content?: unknown } | null;
  if (
    !shaped ||
    typeof shaped !== 'object' ||
    !shaped.recording ||
    typeof shaped.content !== 'object' ||
    !shaped.content
  )
    throw new RecordingProblem(`${file} is not a recording file: it needs "recording" and "content".`);
  const content = shaped.content as Record<string, unknown>;
  return prepareRecording(shaped.recording, (ref: ContentRef) =>
    Object.prototype.hasOwnProperty.call(content, ref) ? content[ref] : undefined,
  );
}

/** The store's recordings: the store itself, or its `recordings` (the sql.js store keeps them beside). */
function recordingsOf(store: ConversationStore): RecordingStore | undefined {
  const isRecordings = (candidate: unknown): candidate is RecordingStore =>
    typeof (candidate as Partial<RecordingStore> | undefined)?.getRecording === 'function' &&
    typeof (candidate as Partial<RecordingStore>).getContent === 'function';
  const nested = (store as { recordings?: unknown }).recordings;
  if (isRecordings(nested)) return nested;
  return isRecordings(store) ? store : undefined;
}
