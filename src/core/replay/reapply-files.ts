/**
 * Puts a fresh place (a worktree at the recorded commit, or a scratch copy) where the recorded
 * run's files were at step N: the recorded write and edit calls before N are run again, with
 * their recorded input, through the live tools rooted in that place.
 *
 * Chosen over restoring the store's checkpoints because it needs nothing but the recording (an
 * imported run has no checkpoints here) and it goes through the same path checks as any tool
 * call. What it cannot reproduce, and says so: files changed by shell commands (bash) or by tools
 * the product no longer has, and edits whose text no longer matches (the place differs from the
 * recorded one). A recording is untrusted: a recorded path that is absolute, climbs out with
 * `..`, or leads out through a link is refused, never written.
 */
import * as path from 'node:path';
import type { AnyTool } from '../tools/tool';
import { PathError, resolveWorkspacePath, type RealPathPort } from '../workspace/workspace-path';
import { preview } from './divergence';
import type { LoadedRecording } from './loaded-recording';
import type { ToolStep } from './recording';

export interface ReappliedFiles {
  /** Recorded writes and edits redone, in order. */
  applied: Array<{ step: number; path: string }>;
  /** Recorded writes refused (a path out of the place) or that failed now: why. */
  refused: Array<{ step: number; path: string; reason: string }>;
  /** Changes before N the re-run did not redo, in words (bash, a tool the product lacks). */
  notReproduced: string[];
}

export interface ReapplyPlace extends RealPathPort {
  /** The fresh place's folder (absolute). */
  root: string;
}

/** Redoes the recorded file changes of the steps before `before` in `place`, with `tools` (rooted there). */
export async function reapplyFileChanges(
  loaded: LoadedRecording,
  before: number,
  tools: readonly AnyTool[],
  place: ReapplyPlace,
  signal: AbortSignal = new AbortController().signal,
): Promise<ReappliedFiles> {
  const byName = new Map(tools.map((tool) => [tool.name, tool] as const));
  const outcome: ReappliedFiles = { applied: [], refused: [], notReproduced: [] };
  for (const step of loaded.recording.steps) {
    if (step.step >= before) break;
    if (step.kind !== 'tool' || !ranThen(loaded, step)) continue;
    const tool = byName.get(step.toolName);
    const files = step.files?.map((file) => file.path) ?? [];
    if (!tool?.traits?.writes || !tool.traits.path) {
      if (files.length > 0)
        outcome.notReproduced.push(
          `step ${step.step}: ${step.toolName} changed ${preview(files.join(', '), 200)} — ${tool ? 'only write and edit calls are redone' : 'this product has no such tool'}`,
        );
      else if (tool?.traits?.command)
        outcome.notReproduced.push(
          `step ${step.step}: ${step.toolName} ran ${preview(tool.traits.command(loaded.toolInput(step)) ?? '', 120)} — what a command changed is not redone`,
        );
      continue;
    }
    const parsed = tool.inputSchema.safeParse(loaded.toolInput(step));
    if (!parsed.success) {
      outcome.refused.push({ step: step.step, path: '', reason: 'its recorded input does not fit the tool now' });
      continue;
    }
    const recordedPath = tool.traits.path(parsed.data);
    const where = await placePath(place, recordedPath);
    if (typeof where !== 'string') {
      outcome.refused.push({ step: step.step, path: String(recordedPath ?? '').slice(0, 200), reason: where.refused });
      continue;
    }
    const result = await Promise.resolve()
      .then(() =>
        tool.execute(parsed.data, {
          conversationId: `rerun:${loaded.recording.manifest.conversationId}`,
          agentId: step.agentId,
          toolCallId: step.toolCallId,
          signal,
          checkedPath: where,
        }),
      )
      .then(
        (value) => (typeof value === 'string' ? { output: value, isError: false } : value),
        (error: unknown) => ({ output: error instanceof Error ? error.message : String(error), isError: true }),
      );
    if (result.isError)
      outcome.refused.push({
        step: step.step,
        path: recordedPath!,
        reason: `it failed now: ${preview(result.output, 200)}`,
      });
    else outcome.applied.push({ step: step.step, path: recordedPath! });
  }
  return outcome;
}

/** The call ran then and did what it did: allowed (or never asked) and not an error. */
function ranThen(loaded: LoadedRecording, step: ToolStep): boolean {
  if (step.decision && !step.decision.approved) return false;
  const result = loaded.toolResult(step);
  return result !== undefined && !result.isError;
}

/** A recorded path inside the place, or why not: relative, no `..`, and no link leading out. */
async function placePath(place: ReapplyPlace, recorded: string | undefined): Promise<string | { refused: string }> {
  if (typeof recorded !== 'string' || recorded === '') return { refused: 'it names no file' };
  if (path.isAbsolute(recorded) || path.win32.isAbsolute(recorded) || recorded.startsWith('~'))
    return { refused: 'the recorded path is absolute: a re-run writes only inside its own place' };
  if (recorded.split(/[\\/]/).includes('..')) return { refused: 'the recorded path climbs out with ..' };
  try {
    return await resolveWorkspacePath(place.root, recorded, place);
  } catch (error) {
    if (error instanceof PathError) return { refused: error.message };
    throw error;
  }
}
