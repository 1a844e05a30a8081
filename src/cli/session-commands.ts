/**
 * `/sessions` (SPEC 5b): the sessions of this repository that work in git worktrees — the
 * editor's and those of `openagent --worktree` — with their branch, state and folder. Finishing
 * them (Review, Apply, Keep Branch, Discard) is the editor's session list, or git's own.
 */
import { GitWorktrees } from '../node/worktrees/git-worktrees';
import { visibleText } from '../core/text/visible-text';
import type { CommandContext } from './slash-commands';

const STATE: Record<string, string> = {
  ready: 'ready',
  'folder-missing': 'folder gone',
  'branch-only': 'branch only (kept)',
};

export const sessionsCommand = {
  name: 'sessions',
  usage: '/sessions',
  help: "this repository's sessions in git worktrees (openagent --worktree NAME works in one)",
  async run(_argument: string, { output }: CommandContext): Promise<void> {
    const here = process.cwd();
    // Listing makes nothing: the base folder is never used.
    const worktrees = new GitWorktrees({ workspaceRoot: here, baseFolder: () => here });
    let listed;
    try {
      listed = await worktrees.list();
    } catch (error) {
      return output.line(`No sessions in worktrees here: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (listed.length === 0)
      return output.line('No session works in a worktree of this repository: openagent --worktree NAME starts one.');
    for (const { worktree, state, note } of listed) {
      const line = `${worktree.branch}  ${visibleText(worktree.name, { keepNewlines: false })}  ${STATE[state] ?? state}`;
      output.line(line);
      output.line(
        output.style.dim(`  ${worktree.root}${note ? ` — ${visibleText(note, { keepNewlines: false })}` : ''}`),
      );
    }
    output.line(output.style.dim("The editor's Sessions list reviews, applies, keeps or discards them."));
  },
};
