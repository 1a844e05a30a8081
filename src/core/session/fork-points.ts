/**
 * Where a stored conversation can be forked or rewound (SPEC 5b), read from its stored messages
 * alone — so the same answers hold for a conversation on screen, one reopened after a reload, and
 * one that is only in the store. Messages are named by their stored `seq`, as the store and the
 * events of a reopened conversation name them; the listed messages (prompts and answers) are also
 * numbered from 1, which is what the CLI shows and `/fork N`, `/rewind N` take.
 */
import type { StoredMessage } from '../ports';

/** A message "Fork from here" can start at: a prompt or an answer. */
export interface ForkPoint {
  /** 1-based, in the conversation's order (what `/fork N` takes). */
  number: number;
  role: 'user' | 'assistant';
  /** The message's own stored seq. */
  seq: number;
  /**
   * Where a fork from it cuts (the fork holds the messages with seq <= this): a prompt itself; an
   * answer with what followed it before the next prompt or answer — its tool calls and their
   * results (one answer to the model), and the end of its run.
   */
  cutSeq: number;
  text: string;
}

/** A stored message's content as far as these functions read it (events are stored whole). */
interface Content {
  text?: unknown;
  type?: unknown;
  agentId?: unknown;
  turn?: unknown;
  seq?: unknown;
}

function content(message: StoredMessage): Content {
  const value = message.content;
  return value !== null && typeof value === 'object' ? (value as Content) : {};
}

/** The messages in order (the store gives them so; a copy sorted anyway costs little). */
export function inOrder(stored: readonly StoredMessage[]): StoredMessage[] {
  return [...stored].sort((a, b) => a.seq - b.seq);
}

/** The prompts and answers of a conversation, numbered. */
export function forkPoints(stored: readonly StoredMessage[]): ForkPoint[] {
  const ordered = inOrder(stored);
  const listed = ordered.filter(
    (message) => (message.role === 'user' || message.role === 'assistant') && typeof content(message).text === 'string',
  );
  const last = ordered.at(-1)?.seq ?? -1;
  return listed.map((message, index) => {
    const next = listed[index + 1];
    return {
      number: index + 1,
      role: message.role as 'user' | 'assistant',
      seq: message.seq,
      cutSeq: message.role === 'user' ? message.seq : next ? next.seq - 1 : last,
      text: content(message).text as string,
    };
  });
}

/**
 * The seq the next message of a conversation holding `stored` gets, as reopening computes it:
 * past every stored seq and every event's own seq (events are numbered on from both).
 */
export function nextSeqAfter(stored: readonly StoredMessage[]): number {
  let next = 0;
  for (const message of stored) {
    next = Math.max(next, message.seq + 1);
    const seq = content(message).seq;
    if (message.role === 'event' && typeof seq === 'number' && Number.isSafeInteger(seq))
      next = Math.max(next, seq + 1);
  }
  return next;
}

const RUN_ENDS = new Set(['done', 'interrupted', 'error']);

/** Whether the lead's run was still going at the end of `stored` (a cut inside a run). */
export function endsMidRun(stored: readonly StoredMessage[]): boolean {
  let open = false;
  for (const message of inOrder(stored)) {
    const { type, agentId } = content(message);
    if (message.role === 'user') open = true;
    else if (message.role === 'event' && agentId === 'lead' && typeof type === 'string' && RUN_ENDS.has(type))
      open = false;
  }
  return open;
}

/** Which turns' file changes lie after a cut (see laterTurns). */
export interface LaterTurns {
  /** Turns to undo to get the files as they were at the cut, newest first. */
  turns: number[];
  /**
   * A turn that was under way at the cut (its tool calls fall on both sides): it is undone whole,
   * since a turn's files are kept as they were when it began, not call by call.
   */
  partial?: number;
}

/**
 * The turns whose file changes (reported by `files_changed` when each run ended) were made after
 * `cutSeq`. A turn's changes are made by the tool calls between the end of the previous turn that
 * changed files and its own report: after the cut when all those calls are, before it when none
 * is. Turns already reverted (`turn_reverted`) changed nothing that is left.
 */
export function laterTurns(stored: readonly StoredMessage[], cutSeq: number): LaterTurns {
  const reportEnd = new Map<number, number>();
  const reverted = new Set<number>();
  const calls: number[] = [];
  for (const message of inOrder(stored)) {
    if (message.role !== 'event') continue;
    const { type, turn } = content(message);
    if (type === 'tool_call') calls.push(message.seq);
    if (typeof turn !== 'number') continue;
    if (type === 'files_changed') reportEnd.set(turn, message.seq);
    if (type === 'turn_reverted') reverted.add(turn);
  }
  const spans = [...reportEnd].sort((a, b) => a[1] - b[1]);
  const later: number[] = [];
  let partial: number | undefined;
  let start = -Infinity;
  for (const [turn, end] of spans) {
    const within = calls.filter((seq) => seq > start && seq <= end);
    start = end;
    if (reverted.has(turn)) continue;
    const after = within.filter((seq) => seq > cutSeq).length;
    if (end <= cutSeq || (after === 0 && within.length > 0)) continue;
    later.push(turn);
    if (after < within.length) partial = turn;
  }
  return { turns: later.reverse(), ...(partial !== undefined ? { partial } : {}) };
}
