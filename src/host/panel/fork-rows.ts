/**
 * The developer panel's tree of forks (SPEC 5b) as rows: the tree the shown conversation is in,
 * flattened depth-first and bounded — at most MAX_FORK_ROWS rows, at most MAX_FORK_CHILDREN forks
 * listed under one conversation, every text one line of at most MAX_FORK_TEXT characters — with
 * what is left out counted on the row above it. The path from the root to the shown conversation
 * is always listed, however many forks come before it. No `vscode` import: unit-tested in Node.
 */
import type { ForkPoint, ForkTree } from '../../core/session/session-forks';
import { MAX_FORK_ROWS, MAX_FORK_TEXT, type ForkRow } from '../../protocol/messages';

/** The most forks listed under one conversation (the others are counted in its `more`). */
export const MAX_FORK_CHILDREN = 50;

export interface ForkRows {
  rows: ForkRow[];
  /** Every conversation of the tree, listed or not. */
  total: number;
}

/** Reads a conversation's prompts and answers (where a fork's message is found). */
export type ReadPoints = (conversationId: string) => Promise<readonly ForkPoint[]>;

/** The rows of `tree`, marking `shownId`; `readPoints` is asked only about the listed forks. */
export async function forkRows(
  tree: ForkTree,
  shownId: string | undefined,
  readPoints: ReadPoints,
  limits: { rows?: number; children?: number } = {},
): Promise<ForkRows> {
  const maxRows = Math.min(limits.rows ?? MAX_FORK_ROWS, MAX_FORK_ROWS);
  const maxChildren = limits.children ?? MAX_FORK_CHILDREN;
  const onPath = pathTo(tree, shownId);
  const sizes = new Map<ForkTree, number>();
  const total = sizeOf(tree, sizes);
  // The rows the path to the shown conversation needs are kept free until it is listed.
  let reserved = onPath.size;
  const listed: Array<{ row: ForkRow; node: ForkTree }> = [];
  // An explicit stack, not recursion: a chain of forks can be as deep as the store lets it be.
  const stack: Array<{ node: ForkTree; depth: number; parent?: ForkRow }> = [{ node: tree, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth, parent } = stack.pop()!;
    const needed = onPath.has(node);
    if (!needed && listed.length + reserved >= maxRows) {
      if (parent) parent.more = (parent.more ?? 0) + sizes.get(node)!;
      continue;
    }
    if (needed) reserved--;
    const row = baseRow(node, depth, shownId);
    listed.push({ row, node });
    const children = node.forks;
    const kept = children.filter((child, index) => index < maxChildren || onPath.has(child));
    const skipped = children.filter((child) => !kept.includes(child));
    const hidden = skipped.reduce((sum, child) => sum + sizes.get(child)!, 0);
    if (hidden > 0) row.more = hidden;
    // Pushed in reverse, so the oldest fork is listed first.
    for (let index = kept.length - 1; index >= 0; index--)
      stack.push({ node: kept[index]!, depth: depth + 1, parent: row });
  }
  await describeOrigins(listed, readPoints);
  return { rows: listed.map(({ row }) => row), total };
}

function baseRow(node: ForkTree, depth: number, shownId: string | undefined): ForkRow {
  const { conversation } = node;
  const row: ForkRow = {
    id: conversation.id,
    depth,
    title: oneLine(conversation.title) || 'Untitled',
    createdAt: Number.isFinite(conversation.createdAt) ? conversation.createdAt : 0,
    shown: conversation.id === shownId,
  };
  const origin = conversation.forkedFrom;
  if (origin && depth === 0) row.parentGone = true;
  else if (origin) row.origin = { reason: origin.reason, seq: origin.seq };
  return row;
}

/** Each listed fork's message it was forked at: the last prompt or answer it shares with its parent. */
async function describeOrigins(listed: ReadonlyArray<{ row: ForkRow }>, readPoints: ReadPoints): Promise<void> {
  for (const { row } of listed) {
    const origin = row.origin;
    if (!origin) continue;
    // The fork holds copies of its parent's messages up to the origin, under the same seq: it
    // names its message even when the parent is gone or was taken back by a rewind.
    const points = await readPoints(row.id).catch(() => []);
    let at: ForkPoint | undefined;
    for (const point of points) if (point.seq <= origin.seq && (!at || point.seq > at.seq)) at = point;
    if (!at) continue;
    origin.number = at.number;
    origin.role = at.role;
    origin.text = oneLine(at.text);
  }
}

/** The conversations from the root down to `shownId` (empty when it is not in the tree). */
function pathTo(tree: ForkTree, shownId: string | undefined): Set<ForkTree> {
  const path = new Set<ForkTree>();
  if (shownId === undefined) return path;
  const parents = new Map<ForkTree, ForkTree>();
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.conversation.id === shownId) {
      for (let at: ForkTree | undefined = node; at; at = parents.get(at)) path.add(at);
      return path;
    }
    for (const child of node.forks) {
      parents.set(child, node);
      stack.push(child);
    }
  }
  return path;
}

/** How many conversations each subtree holds (itself included), without recursion. */
function sizeOf(tree: ForkTree, sizes: Map<ForkTree, number>): number {
  const order: ForkTree[] = [];
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node);
    stack.push(...node.forks);
  }
  for (let index = order.length - 1; index >= 0; index--) {
    const node = order[index]!;
    sizes.set(node, 1 + node.forks.reduce((sum, child) => sum + sizes.get(child)!, 0));
  }
  return sizes.get(tree)!;
}

/**
 * Text for one line of the panel: control characters and bidirectional overrides (which could
 * make a title read as something else) become spaces, runs of space one, cut to MAX_FORK_TEXT.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ');
  const squeezed = flat.replace(/\s+/g, ' ').trim();
  if (squeezed.length <= MAX_FORK_TEXT) return squeezed;
  // Never cut between the two halves of a surrogate pair.
  let cut = MAX_FORK_TEXT - 1;
  const code = squeezed.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${squeezed.slice(0, cut)}…`;
}
