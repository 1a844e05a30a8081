/**
 * The question "Edit and resend" asks before it takes the conversation back (SPEC 5b): the files
 * the later turns changed, those changed by hand since (restoring loses that change), and why,
 * when they cannot be restored at all. A modal, since the answer decides what is written to disk.
 */
import * as vscode from 'vscode';
import { COMMAND_CHANGES_NOTE } from '../../core/session/rewind-files';
import type { RewindAnswer, RewindFilePlan } from '../../core/session/session-forks';

const RESTORE = 'Restore Files';
const KEEP = 'Keep Files As They Are';
/** Files named in the question; the rest are counted. */
const LISTED = 12;

export async function askRewindFiles(plan: RewindFilePlan): Promise<RewindAnswer> {
  const lines = plan.files.slice(0, LISTED).map((file) => {
    const made = file.change === 'created' ? ' (made by them: deleted)' : '';
    const since = file.changedSince ? ' (changed since the agent wrote it: restoring loses that change)' : '';
    return `${file.path}${made}${since}`;
  });
  if (plan.files.length > LISTED) lines.push(`…and ${plan.files.length - LISTED} more`);
  const count = `${plan.files.length} file${plan.files.length === 1 ? '' : 's'}`;
  const detail = [lines.join('\n'), COMMAND_CHANGES_NOTE];
  if (plan.partialTurn !== undefined)
    detail.push(`Turn ${plan.partialTurn} was under way at that message: it is undone whole.`);
  if (!plan.restorable) {
    detail.unshift(`These files cannot be restored: ${plan.reason ?? 'their earlier versions are gone.'}`);
    const choice = await vscode.window.showWarningMessage(
      `The later turns changed ${count}. Edit and resend anyway, leaving them as they are?`,
      { modal: true, detail: detail.join('\n\n') },
      KEEP,
    );
    return choice === KEEP ? 'history_only' : 'cancel';
  }
  const choice = await vscode.window.showWarningMessage(
    `The later turns changed ${count}. Restore them as they were before this prompt?`,
    { modal: true, detail: detail.join('\n\n') },
    RESTORE,
    KEEP,
  );
  return choice === RESTORE ? 'restore' : choice === KEEP ? 'history_only' : 'cancel';
}
