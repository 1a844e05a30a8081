/**
 * Fork and rewind as a surface asks for them (SPEC 5b), for the conversation a session shows.
 * "Fork from here" copies the conversation up to a message into a new one (optionally opening
 * it); "Edit and resend" on an earlier prompt keeps the later part as a fork, restores the files
 * the later turns changed (after asking), takes the conversation back to before the prompt and
 * sends the edited text. Neither runs while the agent works: a run's edits and the store would
 * race them, so the user stops it first.
 */
import type { AgentEvent } from '../events/events';
import type { ConversationStore, StoredConversation, StoredMessage } from '../ports';
import type { Checkpoints } from '../workspace/checkpoints';
import { ConversationForks, ForkError, type ForkTree } from './conversation-forks';
import { forkPoints, inOrder, type ForkPoint } from './fork-points';
import {
  filesAtPoint,
  planFileRestore,
  restoreFiles,
  type FileRestoreOutcome,
  type FilesAtPoint,
  type RewindFilePlan,
} from './rewind-files';

export { ForkError } from './conversation-forks';
export type { ForkTree } from './conversation-forks';
export type { ForkPoint } from './fork-points';
export type { FileRestoreOutcome, FilesAtPoint, RewindFilePlan } from './rewind-files';

/** What the user answered about the files of a rewind. */
export type RewindAnswer =
  /** Restore the files, then take the conversation back. */
  | 'restore'
  /** Take the conversation back and leave the files as they are. */
  | 'history_only'
  /** Do nothing. */
  | 'cancel';

export type ForkRefusal = {
  status: 'refused';
  reason: 'busy' | 'no_conversation' | 'no_store' | 'bad_point';
  message: string;
};

export type RewindOutcome =
  | {
      status: 'rewound';
      /** The fork that keeps the abandoned part (the prompt as it was and everything after). */
      fork: StoredConversation;
      /** Undefined: no file was touched (nothing to restore, or the user said to leave them). */
      files?: FileRestoreOutcome;
      /** Why the files were left (not restorable, or the answer). */
      filesLeft?: string;
      /** The edited prompt was sent (undefined), or why not (no model set up…). */
      sent?: { reason: string; message?: string };
    }
  | { status: 'cancelled' }
  | ForkRefusal;

/** What the session gives its forks. */
export interface SessionForksDeps {
  store: () => Promise<ConversationStore | undefined>;
  now: () => number;
  newId: () => string;
  /** The conversation on screen (running or reopened). */
  currentId: () => string | undefined;
  isBusy: () => boolean;
  /** Everything recorded so far is in the store. */
  flush: () => Promise<void>;
  /** The checkpoints of the conversation on screen, while it has them in memory. */
  checkpoints: () => Checkpoints | undefined;
  /** Reopens a saved conversation on screen (after a reset). */
  open: (id: string) => Promise<boolean>;
  /** Sends a prompt to the conversation on screen. */
  submit: (text: string) => Promise<{ reason: string; message?: string } | undefined>;
  /** Tells the surfaces (the session's event listeners). */
  tell: (event: AgentEvent) => void;
}

const BUSY = 'The agent is working: stop it first (a fork or rewind while it edits files would race it).';

export class SessionForks {
  constructor(private readonly deps: SessionForksDeps) {}

  /** The prompts and answers of the conversation on screen (default), numbered: where forks start. */
  async points(conversationId = this.deps.currentId()): Promise<ForkPoint[]> {
    const store = await this.deps.store();
    if (!store || !conversationId) return [];
    // While it runs, what is stored is listed (a flush now would cut the streaming answer in two).
    if (conversationId === this.deps.currentId() && !this.deps.isBusy()) await this.deps.flush();
    return forkPoints(await store.listMessages(conversationId));
  }

  /** The tree of forks the conversation is in (its root and every fork below). */
  async tree(conversationId = this.deps.currentId()): Promise<ForkTree | undefined> {
    const forks = await this.forks();
    return forks && conversationId ? forks.tree(conversationId) : undefined;
  }

  /**
   * "Fork from here": a new conversation with the messages up to and including `cutSeq` (a
   * ForkPoint's cutSeq; default: all of them). With `open`, the session shows the fork after it
   * and the next prompt continues it; the original is not changed either way.
   */
  async fork(
    cutSeq?: number,
    options: { conversationId?: string; open?: boolean } = {},
  ): Promise<{ status: 'forked'; fork: StoredConversation } | ForkRefusal> {
    const conversationId = options.conversationId ?? this.deps.currentId();
    const ready = await this.ready(conversationId);
    if ('status' in ready) return ready;
    const stored = inOrder(await ready.store.listMessages(ready.id));
    const cut = cutSeq ?? stored.at(-1)?.seq ?? -1;
    let fork: StoredConversation;
    try {
      fork = await ready.forks.fork(ready.id, cut);
    } catch (error) {
      if (error instanceof ForkError) return { status: 'refused', reason: 'bad_point', message: error.message };
      throw error;
    }
    this.told(ready.id, fork);
    if (options.open) await this.deps.open(fork.id);
    return { status: 'forked', fork };
  }

  /**
   * The files a rewind to before `cutSeq + 1` would restore, and whether it can: for the question
   * before `rewind`, and to show what a fork at that point would start from.
   */
  async planFiles(cutSeq: number): Promise<RewindFilePlan | ForkRefusal> {
    const ready = await this.ready(this.deps.currentId());
    if ('status' in ready) return ready;
    return planFileRestore(this.deps.checkpoints(), await ready.store.listMessages(ready.id), cutSeq);
  }

  /**
   * The files as they were at `cutSeq` (relative to now: only those the later turns changed),
   * for a fork into a fresh worktree to write there. Needs the conversation's checkpoints in
   * memory; files whose earlier content is gone are listed in `unknown`.
   */
  async filesAt(cutSeq: number): Promise<FilesAtPoint | ForkRefusal> {
    const ready = await this.ready(this.deps.currentId());
    if ('status' in ready) return ready;
    return filesAtPoint(this.deps.checkpoints(), await ready.store.listMessages(ready.id), cutSeq);
  }

  /**
   * What a fork into a new worktree starts from (worktree-fork.ts), nothing changed: the stored
   * messages, flushed, and — for the conversation on screen only — its checkpoints.
   */
  async source(
    conversationId = this.deps.currentId(),
  ): Promise<{ conversationId: string; stored: StoredMessage[]; checkpoints: Checkpoints | undefined } | ForkRefusal> {
    const ready = await this.ready(conversationId);
    if ('status' in ready) return ready;
    const checkpoints = ready.id === this.deps.currentId() ? this.deps.checkpoints() : undefined;
    return { conversationId: ready.id, stored: inOrder(await ready.store.listMessages(ready.id)), checkpoints };
  }

  /**
   * "Edit and resend" on the prompt stored at `promptSeq`: the conversation as it is is kept as a
   * fork; `confirm` is asked about the files the later turns changed (not asked when there are
   * none; without it they are left as they are); the conversation is taken back to before the
   * prompt, reopened, and `text` is sent as the new prompt — unless `send` is false, for a
   * caller that sends it itself (the CLI, which waits for the run as for any prompt).
   */
  async rewind(
    promptSeq: number,
    text: string,
    confirm?: (plan: RewindFilePlan) => Promise<RewindAnswer>,
    options: { send?: boolean } = {},
  ): Promise<RewindOutcome> {
    const ready = await this.ready(this.deps.currentId());
    if ('status' in ready) return ready;
    if (!text.trim()) return refused('bad_point', 'The edited prompt is empty: type what to send instead.');
    const stored = inOrder(await ready.store.listMessages(ready.id));
    const prompt = forkPoints(stored).find((point) => point.seq === promptSeq);
    if (!prompt || prompt.role !== 'user')
      return refused(
        'bad_point',
        `Message ${String(promptSeq)} is not a prompt of this conversation: only a prompt can be edited.`,
      );
    const checkpoints = this.deps.checkpoints();
    const plan = await planFileRestore(checkpoints, stored, promptSeq - 1);
    const answer = plan.files.length === 0 ? 'history_only' : ((await confirm?.(plan)) ?? 'history_only');
    if (answer === 'cancel') return { status: 'cancelled' };
    // Checked again after the question: a prompt sent meanwhile started a run.
    if (this.deps.isBusy()) return refused('busy', BUSY);
    // The later part is kept before anything is changed.
    const { fork } = await ready.forks.rewind(ready.id, promptSeq);
    let files: FileRestoreOutcome | undefined;
    let filesLeft: string | undefined;
    if (plan.files.length > 0) {
      if (answer === 'restore' && plan.restorable && checkpoints) files = await restoreFiles(checkpoints, plan);
      else filesLeft = plan.restorable ? 'You chose to leave the files as they are.' : plan.reason;
    }
    // Reopening shows the conversation as it is now, the marker naming the fork included.
    await this.deps.open(ready.id);
    const sent = options.send === false ? undefined : await this.deps.submit(text);
    return {
      status: 'rewound',
      fork,
      ...(files ? { files } : {}),
      ...(filesLeft ? { filesLeft } : {}),
      ...(sent ? { sent } : {}),
    };
  }

  /** Tells the surfaces about a fork of the conversation on screen (not stored: the store has it). */
  private told(conversationId: string, fork: StoredConversation): void {
    const origin = fork.forkedFrom;
    if (!origin) return;
    this.deps.tell({
      conversationId,
      agentId: 'lead',
      seq: 0,
      time: this.deps.now(),
      type: 'conversation_forked',
      parentId: origin.conversationId,
      forkId: fork.id,
      atSeq: origin.seq,
      reason: origin.reason,
      title: fork.title,
    });
  }

  private async forks(): Promise<ConversationForks | undefined> {
    const store = await this.deps.store();
    return store && new ConversationForks({ store, now: this.deps.now, newId: this.deps.newId });
  }

  /** The store and the conversation, flushed; or why not now. */
  private async ready(
    conversationId: string | undefined,
  ): Promise<{ id: string; store: ConversationStore; forks: ConversationForks } | ForkRefusal> {
    if (!conversationId) return refused('no_conversation', 'There is no conversation yet: send a prompt first.');
    // Another saved conversation can be forked while this one runs; the running one cannot.
    if (conversationId === this.deps.currentId() && this.deps.isBusy()) return refused('busy', BUSY);
    const store = await this.deps.store();
    if (!store) return refused('no_store', 'Conversations are not being saved (the store could not be opened).');
    if (conversationId === this.deps.currentId()) await this.deps.flush();
    return {
      id: conversationId,
      store,
      forks: new ConversationForks({ store, now: this.deps.now, newId: this.deps.newId }),
    };
  }
}

function refused(reason: ForkRefusal['reason'], message: string): ForkRefusal {
  return { status: 'refused', reason, message };
}
