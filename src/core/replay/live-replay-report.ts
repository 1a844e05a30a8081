/**
 * A live-tools replay as plain text for a terminal or a CI log: each tool step's live result
 * beside the recorded one (equal, or where they part), the first divergence with the rule that
 * stopped the replay, the files compared, and where the place is and how to remove it. Every
 * value may come from a recording made elsewhere: control characters are shown as spaces.
 */
import type { LiveReplayOutcome } from './live-replay';
import { renderDivergence } from './replay-report';

export interface LivePlaceInfo {
  /** The worktree or scratch copy the tools ran in. */
  root: string;
  /** A git worktree (on this branch), or a scratch copy. */
  worktree?: { branch: string; repository: string };
}

export function renderLiveReplay(conversationId: string, outcome: LiveReplayOutcome, place: LivePlaceInfo): string {
  const lines: string[] = [];
  const steps = `${outcome.stepsReplayed} of ${outcome.lastStep} steps`;
  const differing = outcome.tools.filter((tool) => !tool.same);
  lines.push(`Live replay of ${clean(conversationId)} (${steps} replayed, tools run for real).`, '');
  if (outcome.tools.length === 0) lines.push('No tool ran.');
  for (const tool of outcome.tools) {
    const head = `step ${tool.step}${tool.agentId !== 'lead' ? ` (${clean(tool.agentId)})` : ''}: ${clean(tool.call)}`;
    lines.push(`  ${tool.same ? 'same   ' : 'DIFFERS'} ${cut(head, 160)}`);
    if (tool.difference) lines.push(`          ${cut(clean(tool.difference), 300)}`);
  }
  if (outcome.files.length > 0) {
    lines.push('', 'Files:');
    for (const file of outcome.files) {
      const mark = file.same === true ? 'same   ' : file.same === false ? 'DIFFERS' : 'changed';
      const checkpoints = file.checkpoints.length ? ` [${file.checkpoints.map(clean).join(', ')}]` : '';
      lines.push(`  ${mark} ${cut(clean(file.path), 160)}${checkpoints}`);
      if (file.difference) lines.push(`          ${cut(clean(file.difference), 300)}`);
    }
  }
  lines.push('');
  if (outcome.divergence) {
    lines.push(...renderDivergence(outcome.divergence));
    lines.push(
      differing.length > 0
        ? 'The replay stopped there: the recorded answer answered a request the model was not sent in this world.'
        : 'The replay stopped there.',
    );
  }
  const differingFiles = outcome.files.filter((file) => file.same === false).length;
  if (outcome.sameWorld)
    lines.push(
      outcome.ended === 'until'
        ? 'The world answered the same, up to the step asked.'
        : outcome.ended === 'truncated'
          ? 'The world answered the same, as far as the run was recorded (it never finished).'
          : 'The world answered the same.',
    );
  else if (outcome.ended === 'stopped') lines.push('The replay was stopped before its end.');
  else
    lines.push(
      `The world answered differently: ${differing.length} tool result${differing.length === 1 ? '' : 's'} and ${differingFiles} file${differingFiles === 1 ? '' : 's'} differ.`,
    );
  for (const warning of outcome.warnings) lines.push(`Note: ${clean(warning)}`);
  lines.push('');
  if (place.worktree) {
    lines.push(`Worktree: ${clean(place.root)} (branch ${clean(place.worktree.branch)}), left for you to inspect.`);
    lines.push(
      `Remove it with: git -C ${quote(place.worktree.repository)} worktree remove --force ${quote(place.root)} && git -C ${quote(place.worktree.repository)} branch -D ${quote(place.worktree.branch)}`,
    );
  } else {
    lines.push(`Scratch copy: ${clean(place.root)}, left for you to inspect.`);
    lines.push(`Remove it with: rm -rf ${quote(place.root)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Control characters (C0, DEL, C1) and line breaks as spaces. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A path for a shell command line, single-quoted. */
function quote(text: string): string {
  return `'${clean(text).replace(/'/g, `'\\''`)}'`;
}
