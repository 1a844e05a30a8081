/**
 * `openagent replay --check DIR`: the user's own regression suite. Every exported run in DIR
 * (`*.json` files written by `openagent export-run`) is replayed with recorded tools against
 * the product as it is now in this folder: its tools' traits, the policy the CLI reads
 * (~/.openagent/agent.yaml under ./.openagent/agent.yaml), and the system prompt it would send
 * now (the preset and the project's rules, memory and skills), so a change to `.openagent/`
 * that changes what the agent is told or allowed shows as the step where the run parts.
 *
 * The system prompt is compared when the recorded one has the product's environment section:
 * the current prompt is built with the recorded facts (OS, shell, folder, date), which are not
 * what a change to `.openagent/` is about. Without that section, the recorded prompt is used
 * and the table says so.
 *
 * A table (run, steps, result); exit 1 when any run diverges or cannot be read, 0 otherwise.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSystemPrompt, type EnvironmentFacts } from '../core/agent/system-prompt';
import { ProjectKnowledge } from '../core/knowledge/project-knowledge';
import { PresetLibrary } from '../core/knowledge/presets';
import { layerOf } from '../core/policy/policy-layers';
import { toolPolicyFrom } from '../core/policy/policy-rules';
import type { LoadedRecording } from '../core/replay/loaded-recording';
import { RecordingProblem } from '../core/replay/loaded-recording';
import { renderDivergence } from '../core/replay/replay-report';
import { replayRun, type ReplayOutcome } from '../core/replay/replay-run';
import { checkRunExport } from '../core/replay/run-import';
import type { AnyTool } from '../core/tools/tool';
import { visibleText } from '../core/text/visible-text';
import { NodeKnowledgeFiles } from '../node/node-knowledge-files';
import { notAFile } from '../store/regular-file';
import { bundledFile, CliPolicy } from './compose';
import { readExportFile } from './run-share-command';

export interface CheckRow {
  run: string;
  steps?: number;
  result: 'reproduced' | 'diverged' | 'refused';
  /** "diverged at step 3: …" or why the file was refused. */
  detail: string;
  outcome?: Omit<ReplayOutcome, 'events'>;
}

export interface CheckDeps {
  /** The folder whose `.openagent/` counts (the CLI's working folder). */
  workspaceRoot: string;
  /** The product's tools, for their traits. */
  currentTools: readonly AnyTool[];
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
}

/** Replays every export in `folder`; the rows in file-name order. */
export async function checkFolder(folder: string, deps: CheckDeps): Promise<CheckRow[]> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    throw new RecordingProblem(
      `Cannot read the folder ${folder}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
  const files = entries.filter((entry) => entry.name.endsWith('.json')).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (files.length === 0) throw new RecordingProblem(`There are no exported runs (*.json) in ${folder}.`);
  const policy = new CliPolicy(deps.workspaceRoot, os.homedir(), deps.warn, () => undefined);
  policy.refresh();
  const toolPolicy = toolPolicyFrom(
    () => policy.current,
    (rule) => layerOf(policy.decisions, rule),
    () => policy.broken(),
  );
  const prompts = new CurrentPrompt(deps.workspaceRoot, deps.env, deps.warn);
  const rows: CheckRow[] = [];
  for (const entry of files) {
    const file = path.join(folder, entry.name);
    // lstat: a link or a pipe named *.json is refused, not followed or waited on.
    const what = notAFile(fs.lstatSync(file));
    if (what) {
      rows.push({ run: entry.name, result: 'refused', detail: `refused: ${what}` });
      continue;
    }
    let loaded: LoadedRecording;
    try {
      loaded = (await checkRunExport(await readExportFile(file))).loaded;
    } catch (error) {
      if (!(error instanceof RecordingProblem)) throw error;
      rows.push({ run: entry.name, result: 'refused', detail: `refused: ${error.message}` });
      continue;
    }
    const system = await prompts.forRecording(loaded);
    const replayed = await replayRun(loaded, {
      currentTools: deps.currentTools,
      policy: toolPolicy,
      ...(system !== undefined ? { system } : {}),
    }).catch((error: unknown) => {
      if (error instanceof RecordingProblem) return error;
      throw error;
    });
    if (replayed instanceof RecordingProblem) {
      rows.push({ run: entry.name, result: 'refused', detail: `refused: ${replayed.message}` });
      continue;
    }
    const { events: _events, ...outcome } = replayed;
    if (system === undefined)
      outcome.warnings.push('the system prompt was not compared: the recorded one has no environment section');
    rows.push({
      run: entry.name,
      steps: outcome.lastStep,
      result: outcome.reproduced ? 'reproduced' : 'diverged',
      detail: outcome.divergence
        ? `diverged at step ${outcome.divergence.step}: ${outcome.divergence.what}`
        : outcome.ended === 'truncated'
          ? 'reproduced (as far as recorded: the run never finished)'
          : 'reproduced',
      outcome,
    });
  }
  return rows;
}

/** The table, then each divergence in full and each note. */
export function renderCheck(rows: readonly CheckRow[]): string {
  const clean = (text: string) => visibleText(text, { keepNewlines: false });
  const width = Math.min(48, Math.max(3, ...rows.map((row) => clean(row.run).length)));
  const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const lines = [`${'run'.padEnd(width)}  ${'steps'.padStart(5)}  result`, '-'.repeat(width + 40)];
  for (const row of rows)
    lines.push(
      `${cut(clean(row.run), width).padEnd(width)}  ${String(row.steps ?? '').padStart(5)}  ${cut(clean(row.detail), 160)}`,
    );
  for (const row of rows) {
    if (row.outcome?.divergence) lines.push('', `${clean(row.run)}:`, ...renderDivergence(row.outcome.divergence));
    for (const warning of row.outcome?.warnings ?? []) lines.push(`${clean(row.run)}: note: ${clean(warning)}`);
  }
  const count = (result: CheckRow['result']) => rows.filter((row) => row.result === result).length;
  lines.push(
    '',
    `${rows.length} run${rows.length === 1 ? '' : 's'}: ${count('reproduced')} reproduced, ${count('diverged')} diverged, ${count('refused')} refused.`,
  );
  return `${lines.join('\n')}\n`;
}

const ENVIRONMENT =
  /\n# Environment\n- Operating system: ([^\n]*)\n- Shell: ([^\n]*)\n- Workspace root: ([^\n]*)\n- Today's date: (\d{4}-\d{2}-\d{2})\n/;

/** The system prompt the CLI would send now in this folder, with a recording's environment facts. */
class CurrentPrompt {
  private readonly presets: PresetLibrary;
  private readonly knowledge: ProjectKnowledge;
  private sections: Promise<string[]> | undefined;

  constructor(
    root: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly warn: (message: string) => void,
  ) {
    const files = new NodeKnowledgeFiles(() => root);
    this.presets = new PresetLibrary(files, bundledFile('prompts'), () => root);
    this.knowledge = new ProjectKnowledge({
      files,
      workspaceRoot: () => root,
      isTrusted: () => true,
      bundledSkills: bundledFile('skills'),
      globalMemory: path.join(os.homedir(), '.openagent', 'memory.md'),
    });
  }

  /** Undefined when the recorded prompt has no environment section to take the facts from. */
  async forRecording(loaded: LoadedRecording): Promise<string | undefined> {
    const match = ENVIRONMENT.exec(loaded.system);
    if (!match) return undefined;
    const [, system, shell, root, date] = match;
    const facts: EnvironmentFacts = {
      os: system!,
      shell: shell!,
      workspaceRoot: root === '(no folder open)' ? undefined : root,
      date: new Date(`${date!}T00:00:00Z`),
    };
    const preset = loaded.recording.manifest.preset ?? this.env.OPENAGENT_PRESET ?? 'coding';
    return buildSystemPrompt(await this.presets.read(preset), facts, await this.knowledgeSections());
  }

  private knowledgeSections(): Promise<string[]> {
    return (this.sections ??= this.knowledge.load().then(({ sections, skillProblems }) => {
      for (const problem of skillProblems) this.warn(`skipped the skill ${problem.file}: ${problem.message}`);
      return sections;
    }));
  }
}
