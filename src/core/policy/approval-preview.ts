/**
 * What an approval question shows on the terminal, so the user can judge the call without
 * opening anything: the whole command for bash and background jobs, the path and a short diff
 * (or the size of a new file) for edits and writes, the plan for present_plan, else the input.
 */
import * as path from 'node:path';
import type { ApprovalRequest } from './approval';
import type { WorkspaceFiles } from '../ports';
import { proposedChange } from '../tools/builtin/proposed-change';
import { shortDiff } from '../text/short-diff';
import { visibleText } from '../text/visible-text';

const MAX_INPUT_CHARS = 600;
const MAX_PLAN_LINES = 40;
const NEW_FILE_LINES = 8;

/** The preview's lines, with every character that could fake or hide what runs made visible. */
export async function approvalPreview(
  request: ApprovalRequest,
  workspace: WorkspaceFiles | undefined,
): Promise<string[]> {
  return (await previewLines(request, workspace)).map((line) => visibleText(line));
}

async function previewLines(request: ApprovalRequest, workspace: WorkspaceFiles | undefined): Promise<string[]> {
  const input = (request.input ?? {}) as { command?: unknown; plan?: unknown };
  if (typeof input.command === 'string')
    return input.command.split('\n').map((line, index) => `${index ? '  ' : '$ '}${line}`);
  if (typeof input.plan === 'string') return capLines(input.plan.split('\n'), MAX_PLAN_LINES);
  const change = workspace && (await proposedChange(workspace, request.toolName, request.input));
  if (!change) {
    const json = JSON.stringify(request.input, null, 2) ?? 'null';
    return (json.length > MAX_INPUT_CHARS ? `${json.slice(0, MAX_INPUT_CHARS)}…` : json).split('\n');
  }
  if (!change.ok) return [`(this call would fail: ${change.reason})`];
  const shown = path.relative(workspace.root, change.path) || change.path;
  if (change.before === undefined) {
    // A final newline ends the last line; it does not start another.
    const lines = change.after === '' ? [] : change.after.replace(/\r?\n$/, '').split(/\r?\n/);
    const size = `${plural(lines.length, 'line')}, ${plural(Buffer.byteLength(change.after, 'utf8'), 'byte')}`;
    return [`${shown} (new file, ${size})`, ...capLines(lines, NEW_FILE_LINES).map((line) => `+ ${line}`)];
  }
  const diff = shortDiff(change.before, change.after);
  return [`${shown}`, ...(diff.length ? diff : ['(no change)'])];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function capLines(lines: string[], max: number): string[] {
  return lines.length <= max ? lines : [...lines.slice(0, max), `… ${lines.length - max} more lines`];
}
