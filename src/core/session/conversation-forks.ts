/**
 * Forks of saved conversations (SPEC 5b): a new conversation holding another's messages up to a
 * point, with where it came from kept in the store; the tree of forks around a conversation; and
 * the history side of a rewind — the later part kept as a fork, then the conversation taken back.
 * Nothing here is ever deleted that is not first kept as a fork.
 */
import type { AgentEvent } from '../events/events';
import type { ConversationStore, ForkOrigin, StoredConversation, StoredMessage } from '../ports';
import { endsMidRun, forkPoints, inOrder, nextSeqAfter, type ForkPoint } from './fork-points';

/** Why a fork's run shows as ended (a cut inside a run ends it, as a reopened run is ended). */
export const FORKED_MID_RUN = 'The conversation was forked here: the agent run went on in the original.';

export class ForkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForkError';
  }
}

/** A conversation and the forks around it. */
export interface ForkTree {
  conversation: StoredConversation;
  /** Its own forks, and theirs (oldest first). */
  forks: ForkTree[];
}

export interface ForkDeps {
  store: ConversationStore;
  now: () => number;
  newId: () => string;
}

/** Forks past this depth of the tree are not listed (a tree is never that deep by hand). */
const MAX_TREE_DEPTH = 64;

export class ConversationForks {
  constructor(private readonly deps: ForkDeps) {}

  /** The prompts and answers of a saved conversation, numbered (where forks can start). */
  async points(conversationId: string): Promise<ForkPoint[]> {
    return forkPoints(await this.deps.store.listMessages(conversationId));
  }

  /**
   * A new conversation with `conversationId`'s messages up to and including `cutSeq` (see
   * ForkPoint.cutSeq); the parent is not changed. A cut inside a run ends that run in the fork.
   */
  async fork(conversationId: string, cutSeq: number): Promise<StoredConversation> {
    const { parent, stored } = await this.read(conversationId);
    checkSeq(cutSeq, stored);
    const copied = stored.filter((message) => message.seq <= cutSeq);
    return this.copy(parent, stored, {
      copyUpTo: cutSeq,
      origin: { conversationId, seq: cutSeq, reason: 'fork' },
      title: `${parent.title} (fork)`,
      closeRun: endsMidRun(copied),
      next: nextSeqAfter(copied),
    });
  }

  /**
   * Keeps the whole conversation as a fork that shares its messages before `fromSeq` (the part a
   * rewind to `fromSeq` leaves behind), then takes the conversation back to before `fromSeq`,
   * leaving a marker that names the fork. Returns the fork.
   */
  async rewind(conversationId: string, fromSeq: number): Promise<{ fork: StoredConversation; marker: AgentEvent }> {
    const store = this.deps.store;
    if (!store.rewindConversation) throw new ForkError('This conversation store cannot take a conversation back.');
    const { parent, stored } = await this.read(conversationId);
    checkSeq(fromSeq, stored);
    const next = nextSeqAfter(stored);
    const fork = await this.copy(parent, stored, {
      copyUpTo: Infinity,
      origin: { conversationId, seq: fromSeq - 1, reason: 'rewind' },
      title: `${parent.title} (before edit)`,
      closeRun: false,
      next,
    });
    // Numbered after everything the conversation had: what comes next never reuses a number
    // (usage and audit records are named by them, and the earlier ones stay with it).
    const marker = forkedEvent(conversationId, next, this.deps.now(), fork);
    await store.rewindConversation(conversationId, fromSeq, storedEvent(marker));
    await store.saveConversation({ ...parent, updatedAt: this.deps.now() });
    return { fork, marker };
  }

  /** Where a conversation was forked from, if it is a fork (undefined: not saved, or a root). */
  async parent(conversationId: string): Promise<{ origin: ForkOrigin; parent?: StoredConversation } | undefined> {
    const origin = (await this.deps.store.getConversation(conversationId))?.forkedFrom;
    if (!origin) return undefined;
    const parent = await this.deps.store.getConversation(origin.conversationId);
    return parent ? { origin, parent } : { origin };
  }

  /** The conversations forked from this one (oldest first). */
  async forks(conversationId: string): Promise<StoredConversation[]> {
    const store = this.deps.store;
    if (store.listForks) return store.listForks(conversationId);
    const all = await store.listConversations();
    return all
      .filter((conversation) => conversation.forkedFrom?.conversationId === conversationId)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * The whole tree a conversation is in: from its root (the conversation it was first forked
   * from, as far as those are still saved) down through every fork.
   */
  async tree(conversationId: string): Promise<ForkTree | undefined> {
    let root = await this.deps.store.getConversation(conversationId);
    const seen = new Set<string>();
    while (root?.forkedFrom && !seen.has(root.id) && seen.size < MAX_TREE_DEPTH) {
      seen.add(root.id);
      const up = await this.deps.store.getConversation(root.forkedFrom.conversationId);
      if (!up) break;
      root = up;
    }
    return root && this.subtree(root, new Set(), 0);
  }

  private async subtree(conversation: StoredConversation, seen: Set<string>, depth: number): Promise<ForkTree> {
    seen.add(conversation.id);
    const forks: ForkTree[] = [];
    if (depth < MAX_TREE_DEPTH)
      for (const fork of await this.forks(conversation.id))
        if (!seen.has(fork.id)) forks.push(await this.subtree(fork, seen, depth + 1));
    return { conversation, forks };
  }

  private async read(conversationId: string): Promise<{ parent: StoredConversation; stored: StoredMessage[] }> {
    const parent = await this.deps.store.getConversation(conversationId);
    if (!parent) throw new ForkError(`There is no saved conversation ${conversationId}.`);
    const stored = inOrder(await this.deps.store.listMessages(conversationId));
    if (stored.length === 0) throw new ForkError('The conversation has no messages yet: there is nothing to fork.');
    return { parent, stored };
  }

  /** Writes the fork: one store write where the store can copy, message by message otherwise. */
  private async copy(
    parent: StoredConversation,
    stored: readonly StoredMessage[],
    how: { copyUpTo: number; origin: ForkOrigin; title: string; closeRun: boolean; next: number },
  ): Promise<StoredConversation & { forkedFrom: ForkOrigin }> {
    const id = this.deps.newId();
    const now = this.deps.now();
    const conversation = {
      id,
      title: how.title,
      createdAt: now,
      updatedAt: now,
      settings: { ...parent.settings },
      forkedFrom: how.origin,
    };
    let seq = how.next;
    const add: StoredMessage[] = [];
    if (how.closeRun) {
      const event: AgentEvent = {
        conversationId: id,
        agentId: 'lead',
        seq,
        time: now,
        type: 'interrupted',
        reason: FORKED_MID_RUN,
      };
      add.push(storedEvent(event, seq++));
    }
    add.push(storedEvent(forkedEvent(id, seq, now, conversation), seq));
    const copyUpTo = Math.min(how.copyUpTo, stored.at(-1)!.seq);
    const store = this.deps.store;
    if (store.forkConversation) await store.forkConversation({ conversation, copyUpTo, add });
    else {
      await store.saveConversation(conversation);
      for (const message of stored)
        if (message.seq <= copyUpTo)
          await store.putMessage({ ...message, id: `${id}-${message.seq}`, conversationId: id });
      for (const message of add) await store.putMessage(message);
    }
    return conversation;
  }
}

/** The `conversation_forked` event, in the conversation `conversationId` (the fork or its parent). */
function forkedEvent(
  conversationId: string,
  seq: number,
  time: number,
  fork: StoredConversation & { forkedFrom: ForkOrigin },
): AgentEvent {
  return {
    conversationId,
    agentId: 'lead',
    seq,
    time,
    type: 'conversation_forked',
    parentId: fork.forkedFrom.conversationId,
    forkId: fork.id,
    atSeq: fork.forkedFrom.seq,
    reason: fork.forkedFrom.reason,
    title: fork.title,
  };
}

/** An event as the recorder stores it: `<conversation>-<seq>`, the event whole. */
function storedEvent(event: AgentEvent, seq = event.seq): StoredMessage {
  return {
    id: `${event.conversationId}-${seq}`,
    conversationId: event.conversationId,
    seq,
    role: 'event',
    content: event,
    createdAt: event.time,
  };
}

/** A seq must name a message of the conversation (or lie between two of them). */
function checkSeq(seq: number, stored: readonly StoredMessage[]): void {
  const first = stored[0]!.seq;
  const last = stored.at(-1)!.seq;
  if (!Number.isSafeInteger(seq) || seq < first || seq > last)
    throw new ForkError(
      `No message ${String(seq)} in this conversation: its messages are numbered ${first} to ${last}.`,
    );
}
