/**
 * The files a live-tools replay compares at its end: every file the recorded run changed in the
 * steps the replay went through (the steps' recorded files, with their checkpoint ids, and the
 * paths of recorded write and edit calls) and every file the live run wrote. A recording keeps
 * no file content of its own (checkpoint ids name a turn's before-images, which stay in the
 * editor that made them), so what a file should hold is known where the recorded run wrote it
 * whole (write_file's content) and not after an edit or a command: then the report says the
 * file changed in both, without claiming more.
 */
import * as path from 'node:path';
import type { AnyTool } from '../tools/tool';
import { preview } from './divergence';
import type { LoadedRecording } from './loaded-recording';

/** One file either run changed. */
export interface FileComparison {
  /** Relative to the place's root. */
  path: string;
  changedThen: boolean;
  changedNow: boolean;
  /** The recorded checkpoint ids of the changes (turn-N), where the recording has them. */
  checkpoints: string[];
  /** Whether the file now holds what the recorded run left; undefined when the recording cannot say. */
  same?: boolean;
  /** Where it differs, or why it cannot be said, in a line. */
  difference?: string;
}

/** At most this many files are compared (a run that wrote more is summed up by the first ones). */
const MAX_FILES = 1_000;

export async function fileComparisons(
  loaded: LoadedRecording,
  used: ReadonlySet<number>,
  tools: ReadonlyMap<string, AnyTool>,
  writtenNow: ReadonlySet<string>,
  place: { root: string; readFile(relativePath: string): Promise<string | undefined> },
): Promise<FileComparison[]> {
  const recordedRoot = loaded.recording.manifest.place.root;
  // Path → what the recorded run left there: the text when it wrote it whole, else null (unknown).
  const then = new Map<string, { text: string | null; checkpoints: string[] }>();
  for (const step of loaded.recording.steps) {
    if (step.kind !== 'tool' || !used.has(step.step)) continue;
    const changed = (file: string, text: string | null, checkpoint?: string) => {
      const key = placePath(recordedRoot, file);
      if (key === undefined) return;
      const entry = then.get(key) ?? { text: null, checkpoints: [] };
      entry.text = text ?? (checkpoint ? entry.text : null);
      if (checkpoint && !entry.checkpoints.includes(checkpoint)) entry.checkpoints.push(checkpoint);
      then.set(key, entry);
    };
    const result = loaded.toolResult(step);
    const ran = result !== undefined && !result.isError && step.decision?.approved !== false;
    const tool = tools.get(step.toolName);
    const input = loaded.toolInput(step) as Record<string, unknown> | null;
    if (ran && tool?.traits?.writes && tool.traits.path) {
      const parsed = tool.inputSchema.safeParse(input);
      const written = parsed.success ? tool.traits.path(parsed.data) : undefined;
      const whole = step.toolName === 'write_file' && typeof input?.content === 'string' ? input.content : null;
      if (typeof written === 'string') changed(written, whole);
    }
    for (const file of step.files ?? []) changed(file.path, null, file.checkpointId);
  }
  const now = new Set([...writtenNow].map((file) => placePath(place.root, file)).filter((file) => file !== undefined));
  const paths = [...new Set([...then.keys(), ...now])].sort().slice(0, MAX_FILES);
  const comparisons: FileComparison[] = [];
  for (const file of paths) {
    const recorded = then.get(file);
    const changedNow = now.has(file);
    const comparison: FileComparison = {
      path: file,
      changedThen: recorded !== undefined,
      changedNow,
      checkpoints: recorded?.checkpoints ?? [],
    };
    if (recorded && recorded.text !== null) {
      const text = await place.readFile(file).catch(() => undefined);
      comparison.same = text === recorded.text;
      if (!comparison.same)
        comparison.difference =
          text === undefined ? 'the file is absent or unreadable now' : firstDifference(recorded.text, text);
    } else if (recorded && !changedNow) {
      comparison.same = false;
      comparison.difference = 'the recorded run changed it; the live run did not';
    } else if (!recorded) {
      comparison.same = false;
      comparison.difference = 'the live run changed it; the recorded run did not';
    } else comparison.difference = 'changed in both runs; the recording does not hold what the recorded run left';
    comparisons.push(comparison);
  }
  return comparisons;
}

/** Where two texts part: the first differing line, both sides shown short. */
export function firstDifference(recorded: string, live: string): string {
  if (recorded === live) return 'the same';
  const a = recorded.split('\n');
  const b = live.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  if (line >= a.length) return `line ${line + 1}: the live result goes on: ${preview(b[line] ?? '', 120)}`;
  if (line >= b.length) return `line ${line + 1}: the live result ends; recorded ${preview(a[line] ?? '', 120)}`;
  return `line ${line + 1}: recorded ${preview(a[line], 120)}, now ${preview(b[line], 120)}`;
}

/** A path relative to `root` with forward slashes; undefined for one outside it (never compared). */
function placePath(root: string, file: string): string | undefined {
  const relative = path.isAbsolute(file) ? path.relative(root, file) : file;
  const normal = path.posix.normalize(relative.split(path.sep).join('/')).replace(/^\.\//, '');
  if (normal === '' || normal === '.' || normal.startsWith('../') || normal === '..' || path.posix.isAbsolute(normal))
    return undefined;
  return normal;
}
