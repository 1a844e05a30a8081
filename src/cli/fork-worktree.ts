/**
 * `/fork N --worktree NAME` (issue 33): the conversation up to message N continues in a new git
 * worktree on `openagent/<name>` whose files are as they were at message N (the core's
 * forkIntoWorktree). The REPL keeps working where it was started — its tools, sandbox and
 * checkpoints are composed for that folder — so it says how to continue there:
 * `openagent --worktree NAME`, then `/resume ID`. A name some worktree session already has is
 * refused before anything is made (`openagent --worktree NAME` would work in that one instead).
 */
import type { ForkPoint } from '../core/session/session-forks';
import { forkIntoWorktree } from '../core/session/worktree-fork';
import { visibleText } from '../core/text/visible-text';
import { NodeForkFiles } from '../node/worktrees/fork-files';
import { GitWorktrees } from '../node/worktrees/git-worktrees';
import { displayName, sessionSlug } from '../node/worktrees/worktree-names';
import type { CommandContext } from './slash-commands';
import { setUpWorktree, worktreeOptions } from './worktree-place';

export async function forkIntoNewWorktree(point: ForkPoint, name: string, context: CommandContext): Promise<void> {
  const { cli, output, env, quiet } = context;
  const options = worktreeOptions({ sandbox: cli.settings.sandbox ?? 'auto' }, env, output);
  const root = cli.workspace.root;
  const worktrees = new GitWorktrees({ workspaceRoot: root, baseFolder: () => options.baseFolder });
  let taken;
  try {
    taken = (await worktrees.list()).find(
      ({ worktree }) => worktree.name === displayName(name) || worktree.branch === `openagent/${sessionSlug(name)}`,
    );
  } catch (error) {
    return output.error(`Nothing was forked: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (taken)
    return output.error(
      `A worktree session "${shown(taken.worktree.name)}" (${taken.worktree.branch}) already has that name: nothing was forked. Pick another name (openagent --worktree ${quoted(name)} works in that one).`,
    );
  const outcome = await quiet(() =>
    forkIntoWorktree(
      { forks: cli.session.forks, worktrees, files: new NodeForkFiles(root) },
      { name, cutSeq: point.cutSeq },
    ),
  );
  if (outcome.status !== 'forked') return output.error(outcome.message);
  const { worktree, fork } = outcome;
  for (const notice of outcome.notices) output.line(output.style.dim(shown(notice)));
  await setUpWorktree(worktree, { ...options, cwd: root });
  output.line(
    `Forked at message ${point.number} into ${fork.id.slice(0, 8)} ("${shown(fork.title)}") in the worktree ${worktree.root} on ${worktree.branch}. This session stays on the original.`,
  );
  output.line(
    `To continue the fork there: ${output.style.cyan(`openagent --worktree ${quoted(name)}`)}, then ${output.style.cyan(`/resume ${fork.id.slice(0, 8)}`)}.`,
  );
}

/** A name as a shell word the user can paste (single quotes unless it is plain). */
function quoted(name: string): string {
  const plain = shown(name);
  return /^[\w.,:@%+=-]+$/.test(plain) ? plain : `'${plain.replace(/'/g, `'\\''`)}'`;
}

function shown(text: string): string {
  return visibleText(text, { keepNewlines: false });
}
