/**
 * Fork and rewind in the interactive session (SPEC 5b): `/messages` numbers the conversation's
 * prompts and answers, `/fork [N]` continues in a copy of the conversation up to message N (the
 * original stays as it was), `/rewind N [new text]` takes the conversation back to before prompt N
 * and sends it again edited — the later part kept as a fork, the files the later turns changed
 * restored only if the user says yes — and `/forks` shows the tree of forks.
 */
import type { ForkPoint, ForkTree, RewindAnswer, RewindFilePlan } from '../core/session/session-forks';
import { COMMAND_CHANGES_NOTE } from '../core/session/rewind-files';
import type { CommandContext } from './slash-commands';
import type { Output } from './output';
import { forkIntoNewWorktree } from './fork-worktree';

const EXCERPT = 72;

/** `/messages`: the numbers `/fork` and `/rewind` take. */
export const messagesCommand = {
  name: 'messages',
  usage: '/messages',
  help: 'number the prompts and answers of this conversation (for /fork and /rewind)',
  async run(_argument: string, { cli, output }: CommandContext): Promise<void> {
    const points = await cli.session.forks.points();
    if (points.length === 0) return output.line('No messages yet: send a prompt first.');
    for (const point of points) output.line(describePoint(point, output));
    output.line(
      output.style.dim('/fork N continues from message N in a copy; /rewind N edits prompt N and sends it again.'),
    );
  },
};

/** `/fork [N]`: a copy of the conversation up to message N (default: all of it), continued from here. */
export const forkCommand = {
  name: 'fork',
  usage: '/fork [N] [--worktree NAME]',
  help: 'continue in a copy of this conversation up to message N (default: the last); the original stays. --worktree NAME: in a new worktree whose files are as they were at N',
  async run(text: string, context: CommandContext): Promise<void> {
    const { cli, output, quiet } = context;
    const [argument = '', worktree] = text.split(/(?:^|\s)--worktree(?:\s+|$)/, 2);
    if (worktree !== undefined && !worktree.trim())
      return output.error("Usage: /fork [N] --worktree NAME (the new session's name).");
    const points = await cli.session.forks.points();
    const point = argument.trim() ? pick(argument, points, output) : points.at(-1);
    if (!point) return points.length === 0 ? output.error('No messages yet: send a prompt first.') : undefined;
    if (worktree !== undefined) return forkIntoNewWorktree(point, worktree.trim(), context);
    const parentId = cli.session.currentId!;
    const result = await quiet(() => cli.session.forks.fork(point.cutSeq, { open: true }));
    if (result.status !== 'forked') return output.error(result.message);
    output.line(
      `Forked at message ${point.number} into ${short(result.fork.id)} ("${result.fork.title}"). Your next prompt continues the fork; /resume ${short(parentId)} goes back to the original.`,
    );
  },
};

/** `/rewind N [text]`: prompt N edited and sent again; what came after it is kept as a fork. */
export const rewindCommand = {
  name: 'rewind',
  usage: '/rewind N [new text]',
  help: 'take the conversation back to prompt N and send it again (edited); the later part is kept as a fork',
  async run(argument: string, context: CommandContext): Promise<void> {
    const { cli, output, ask, quiet, send } = context;
    const [, number = '', inline = ''] = /^(\S*)\s*([\s\S]*)$/.exec(argument.trim()) ?? [];
    if (!number) return output.error('Usage: /rewind N [new text] (/messages numbers the prompts).');
    const points = await cli.session.forks.points();
    const point = pick(number, points, output);
    if (!point) return;
    if (point.role !== 'user')
      return output.error(
        `Message ${point.number} is an answer: /rewind takes the number of a prompt (/messages lists them).`,
      );
    let text = inline.trim();
    if (!text) {
      output.line(output.style.dim(`Prompt ${point.number} was: ${excerpt(point.text)}`));
      const typed = await ask('new prompt (Enter sends it as it was)> ');
      if (typed === undefined) return output.line('Rewind cancelled.');
      text = typed.trim() || point.text;
    }
    const plan = await cli.session.forks.planFiles(point.seq - 1);
    if ('status' in plan) return output.error(plan.message);
    const answer = await askAboutFiles(plan, point.number, context);
    if (answer === 'cancel') return output.line('Rewind cancelled: nothing was changed.');
    const outcome = await quiet(() => cli.session.forks.rewind(point.seq, text, async () => answer, { send: false }));
    if (outcome.status === 'cancelled') return output.line('Rewind cancelled: nothing was changed.');
    if (outcome.status === 'refused') return output.error(outcome.message);
    output.line(
      `Rewound to before message ${point.number}. What came after is kept as ${short(outcome.fork.id)} ("${outcome.fork.title}"): /resume ${short(outcome.fork.id)} opens it.`,
    );
    const files = outcome.files;
    if (files) {
      if (files.restored.length) output.line(`Restored: ${files.restored.join(', ')}`);
      if (files.deleted.length) output.line(`Deleted (made by the later turns): ${files.deleted.join(', ')}`);
      for (const failed of files.failed) output.error(`Could not restore ${failed.path}: ${failed.reason}`);
    } else if (outcome.filesLeft) output.line(output.style.dim(`Files left as they are: ${outcome.filesLeft}`));
    output.line(`${output.style.cyan('›')} ${text}`);
    await send(text);
  },
};

/** `/forks`: the tree of forks this conversation is in. */
export const forksCommand = {
  name: 'forks',
  usage: '/forks',
  help: 'the tree of forks this conversation is in',
  async run(_argument: string, { cli, output }: CommandContext): Promise<void> {
    const tree = await cli.session.forks.tree();
    if (!tree) return output.line('No saved conversation yet: send a prompt first.');
    if (tree.forks.length === 0) return output.line('This conversation has no forks: /fork N makes one.');
    printTree(tree, 0, cli.session.currentId, output);
    output.line(output.style.dim('/resume ID opens one.'));
  },
};

/** Asks about the files of a rewind: restore them (y), or go back without (N) — or cancel. */
async function askAboutFiles(plan: RewindFilePlan, number: number, context: CommandContext): Promise<RewindAnswer> {
  const { output, ask } = context;
  if (plan.files.length === 0) return 'history_only';
  const turns = plan.turns.length === 1 ? `turn ${plan.turns[0]}` : `turns ${plan.turns.join(', ')}`;
  output.line(`The later ${turns} changed ${plan.files.length} file${plan.files.length === 1 ? '' : 's'}:`);
  for (const file of plan.files)
    output.line(
      `  ${file.path}${file.change === 'created' ? ' (made by them: deleted)' : ''}${file.changedSince ? output.style.yellow(' (changed since the agent wrote it: restoring loses that change)') : ''}`,
    );
  if (plan.partialTurn !== undefined)
    output.line(output.style.dim(`Turn ${plan.partialTurn} was under way at that message: it is undone whole.`));
  output.line(output.style.dim(COMMAND_CHANGES_NOTE));
  if (!plan.restorable) {
    output.line(output.style.yellow(plan.reason ?? 'These files cannot be restored.'));
    const typed = await ask('Rewind the conversation anyway and leave the files as they are? [y/N] ');
    return isYes(typed) ? 'history_only' : 'cancel';
  }
  const typed = await ask(`Restore them as they were before message ${number}? [y/N] `);
  if (typed === undefined) return 'cancel';
  return isYes(typed) ? 'restore' : 'history_only';
}

function isYes(typed: string | undefined): boolean {
  return /^\s*y(es)?\s*$/i.test(typed ?? '');
}

/** Message `text` (a number as /messages shows it), or undefined after saying why not. */
function pick(text: string, points: readonly ForkPoint[], output: Output): ForkPoint | undefined {
  if (points.length === 0) {
    output.error('No messages yet: send a prompt first.');
    return undefined;
  }
  const range = `this conversation has messages 1 to ${points.length} (/messages lists them)`;
  if (!/^\d{1,9}$/.test(text.trim())) {
    output.error(`"${excerpt(text, 20)}" is not a message number: ${range}.`);
    return undefined;
  }
  const point = points[Number(text.trim()) - 1];
  if (!point) output.error(`No message ${Number(text.trim())}: ${range}.`);
  return point;
}

function describePoint(point: ForkPoint, output: Output): string {
  const who = point.role === 'user' ? output.style.cyan('you') : 'agent';
  return `${String(point.number).padStart(4)}  ${who}: ${excerpt(point.text)}`;
}

function printTree(tree: ForkTree, depth: number, current: string | undefined, output: Output): void {
  const { conversation } = tree;
  const here = conversation.id === current ? ' *' : '';
  const why = conversation.forkedFrom?.reason === 'rewind' ? ' (left by a rewind)' : '';
  output.line(`${'  '.repeat(depth)}${output.style.cyan(short(conversation.id))}  ${conversation.title}${why}${here}`);
  for (const fork of tree.forks) printTree(fork, depth + 1, current, output);
}

/** The first line of a text, cut to a width, control characters shown as spaces. */
function excerpt(text: string, width = EXCERPT): string {
  // eslint-disable-next-line no-control-regex
  const line = (text.trim().split('\n')[0] ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ');
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function short(id: string): string {
  return id.slice(0, 8);
}
