/**
 * The developer panel's Forks tab (SPEC 5b): the tree of forks the shown conversation is in, one
 * row per conversation, each fork under its parent with the message it was forked at, why (a
 * fork, or the part an edited prompt left behind), when, and its title; the shown one marked.
 * A row is a button: it asks the host to show that conversation. Everything goes in as text, and
 * the host sends a bounded list: rows are drawn flat, indented by depth, never recursively.
 */
import type { ForkRow, HostToPanel } from '../../src/protocol/messages';
import { badge, el, emptyNote } from './dom';

type ForkTreeMessage = Extract<HostToPanel, { type: 'fork_tree' }>;

/** Indentation stops growing here; deeper rows say their depth instead. */
const MAX_INDENT = 24;
const INDENT_PX = 14;

export function renderForkTree(message: ForkTreeMessage, open: (conversationId: string) => void): Node[] {
  if (message.rows.length === 0) return [emptyNote('No saved conversation yet: forks show here once there is one.')];
  const forks = message.total - 1;
  const summary =
    forks === 0
      ? 'This conversation has no forks yet: "Fork from here" on a message (or /fork N in the CLI) makes one.'
      : `${forks} fork${forks === 1 ? '' : 's'} in this tree. Click one to open it.`;
  const list = el('ul', 'fork-tree');
  list.setAttribute('aria-label', 'Tree of forks');
  for (const row of message.rows) list.append(renderRow(row, open));
  const listed = message.rows.length;
  return [
    el('p', 'fork-summary', summary),
    list,
    ...(listed < message.total
      ? [emptyNote(`${message.total - listed} more conversation(s) of this tree are not listed.`)]
      : []),
  ];
}

function renderRow(row: ForkRow, open: (conversationId: string) => void): HTMLLIElement {
  const item = el('li', `fork-row${row.shown ? ' fork-shown' : ''}`);
  item.dataset.id = row.id;
  item.dataset.depth = String(row.depth);
  item.style.paddingLeft = `${Math.min(row.depth, MAX_INDENT) * INDENT_PX}px`;
  const button = el(
    'button',
    'fork-open',
    row.depth > MAX_INDENT ? el('span', 'fork-depth muted', `↳ level ${row.depth} `) : undefined,
    el('span', 'fork-title', row.title),
    row.shown ? badge('shown', 'fork-shown-badge') : undefined,
  );
  button.type = 'button';
  if (row.shown) {
    button.disabled = true;
    button.setAttribute('aria-current', 'true');
    button.title = 'The conversation shown now';
  } else {
    button.title = 'Open this conversation';
    button.addEventListener('click', () => open(row.id));
  }
  item.append(button, el('div', 'fork-origin', describeOrigin(row)));
  if (row.more) item.append(el('div', 'fork-more muted', `${row.more} more fork(s) below this one are not listed.`));
  return item;
}

function describeOrigin(row: ForkRow): string {
  const when = describeTime(row.createdAt);
  const origin = row.origin;
  if (!origin)
    return row.parentGone
      ? `A fork of a conversation no longer listed · ${when}`
      : `The conversation the others were forked from · ${when}`;
  const why = origin.reason === 'rewind' ? 'Kept when a prompt was edited (rewind)' : 'Forked';
  if (origin.number === undefined) return `${why} before the first message · ${when}`;
  const who = origin.role === 'user' ? 'your prompt' : 'the answer';
  return `${why} at message ${origin.number} (${who}): “${origin.text ?? ''}” · ${when}`;
}

function describeTime(time: number): string {
  const date = new Date(time);
  return time > 0 && !Number.isNaN(date.getTime()) ? date.toLocaleString() : 'unknown time';
}
