/**
 * The chat's "Fork from here" and "Edit and resend" (SPEC 5b). The webview names a message by the
 * seq of the event that showed it, and that is not the seq the store knows it by: a live
 * conversation numbers its events and the recorder numbers what it stores, each on its own. So the
 * host never passes the webview's number on: it finds the event in the conversation it shows
 * (refusing a number or conversation it does not show), counts which prompt it is, and takes that
 * prompt's stored seq from the fork points. Prompts are counted, not answers: every prompt event
 * is stored as one prompt, while an answer may be stored in pieces.
 */
import type { AgentEvent } from '../../core/events/events';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { ForkPoint, RewindAnswer, RewindFilePlan, RewindOutcome } from '../../core/session/session-forks';

/** How the chat tells the user: a notice in the chat, and (optionally) a notification. */
export interface ChatForkSurface {
  notice(level: 'info' | 'warning', text: string): void;
  /** Asks about the files the later turns changed; without it they are left as they are. */
  confirmRewind?(plan: RewindFilePlan): Promise<RewindAnswer>;
  /** An outcome that outlives the chat's reset (an edit resets and resends): a notification. */
  notify?(text: string): void;
  /**
   * Asks where a fork goes (host/sessions/fork-placer.ts): 'here' for the chat's own fork, or
   * 'handled' when it made the fork elsewhere (a new worktree session) or the user cancelled.
   * Without it, forks are made here.
   */
  placeFork?(request: ForkPlaceRequest): Promise<'here' | 'handled'>;
}

/** A fork the chat would make, for `placeFork` to make elsewhere. */
export interface ForkPlaceRequest {
  session: ConversationSession;
  conversationId: string;
  /** The stored seq the fork cuts after. */
  cutSeq: number;
}

type Located = { prompt: ForkPoint; prompts: ForkPoint[]; points: ForkPoint[]; event: AgentEvent };

const BUSY = 'The agent is working: stop it first (a fork or an edit while it edits files would race it).';
const NOT_SHOWN = 'That message is not part of the conversation the chat shows now: nothing was changed.';

export class ChatForks {
  constructor(
    private readonly session: ConversationSession,
    private readonly surface: ChatForkSurface,
  ) {}

  /**
   * "Fork from here". On a prompt: a new conversation with what came before it (to ask something
   * else from there); on an answer: with that whole exchange. The chat shows the fork after it.
   */
  async fork(conversationId: string, seq: number): Promise<void> {
    const located = await this.locate(conversationId, seq, ['user_message', 'text_delta']);
    if (typeof located === 'string') return this.surface.notice('warning', located);
    const { prompt, prompts, points, event } = located;
    let cut: number;
    if (event.type === 'user_message') {
      if (prompt.number === 1)
        return this.surface.notice(
          'info',
          'There is nothing before the first prompt to fork: New Chat starts an empty conversation.',
        );
      cut = prompt.seq - 1;
    } else {
      const next = prompts[prompts.indexOf(prompt) + 1];
      cut = next ? next.seq - 1 : points.at(-1)!.cutSeq;
    }
    if ((await this.surface.placeFork?.({ session: this.session, conversationId, cutSeq: cut })) === 'handled') return;
    const parentTitle = await this.title(conversationId);
    const result = await this.session.forks.fork(cut, { conversationId, open: true });
    if (result.status !== 'forked') return this.surface.notice('warning', result.message);
    this.surface.notice(
      'info',
      `This is a fork ("${result.fork.title}"): your next prompt continues it. ${parentTitle ? `"${parentTitle}"` : 'The original'} stays as it was, in the history.`,
    );
  }

  /** "Edit and resend" on a prompt: back to before it, the later part kept as a fork, `text` sent. */
  async edit(conversationId: string, seq: number, text: string): Promise<void> {
    const located = await this.locate(conversationId, seq, ['user_message']);
    if (typeof located === 'string') return this.surface.notice('warning', located);
    const outcome = await this.session.forks.rewind(located.prompt.seq, text, this.surface.confirmRewind);
    const said = describeRewind(outcome);
    if (outcome.status === 'refused') return this.surface.notice('warning', said);
    if (outcome.status === 'cancelled') return this.surface.notice('info', said);
    // The chat was reset and the prompt sent: a notice would be cleared by it, a notification stays.
    if (this.surface.notify) this.surface.notify(said);
    else this.surface.notice('info', said);
  }

  /** The prompt a webview's event names, in the conversation shown; or why not. */
  private async locate(
    conversationId: string,
    seq: number,
    types: ReadonlyArray<AgentEvent['type']>,
  ): Promise<Located | string> {
    if (conversationId !== this.session.currentId) return NOT_SHOWN;
    if (this.session.isBusy) return BUSY;
    const history = this.session.history;
    const at = history.findIndex(
      (event) => event.seq === seq && event.conversationId === conversationId && types.includes(event.type),
    );
    if (at < 0) return NOT_SHOWN;
    const shownPrompts = history.filter((event) => event.type === 'user_message');
    const before = history.slice(0, at + 1).filter((event) => event.type === 'user_message').length;
    const points = await this.session.forks.points(conversationId);
    const prompts = points.filter((point) => point.role === 'user');
    // The chat and the store must agree on the prompts, or a count could name the wrong one.
    if (prompts.length !== shownPrompts.length || before === 0)
      return 'The chat and the saved conversation differ (it may not have been saved): nothing was changed.';
    const event = history[at]!;
    return { prompt: prompts[before - 1]!, prompts, points, event };
  }

  private async title(conversationId: string): Promise<string | undefined> {
    const tree = await this.session.forks.tree(conversationId);
    return tree ? findTitle(tree, conversationId) : undefined;
  }
}

function findTitle(
  tree: { conversation: { id: string; title: string }; forks: Array<typeof tree> },
  id: string,
): string | undefined {
  if (tree.conversation.id === id) return tree.conversation.title;
  for (const fork of tree.forks) {
    const found = findTitle(fork, id);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A rewind's outcome in words: the fork that keeps the old part, and what became of the files. */
export function describeRewind(outcome: RewindOutcome): string {
  if (outcome.status === 'refused') return outcome.message;
  if (outcome.status === 'cancelled') return 'Edit cancelled: nothing was changed.';
  const parts = [`Sent again. The conversation as it was is kept as a fork ("${outcome.fork.title}").`];
  const files = outcome.files;
  if (files) {
    if (files.restored.length) parts.push(`Restored: ${files.restored.join(', ')}.`);
    if (files.deleted.length) parts.push(`Deleted (made by the later turns): ${files.deleted.join(', ')}.`);
    for (const failed of files.failed) parts.push(`Could not restore ${failed.path}: ${failed.reason}`);
  } else if (outcome.filesLeft) parts.push(`Files left as they are: ${outcome.filesLeft}`);
  if (outcome.sent)
    parts[0] = `Rewound, but the edited prompt was not sent (${outcome.sent.message ?? outcome.sent.reason}). The conversation as it was is kept as a fork ("${outcome.fork.title}").`;
  return parts.join(' ');
}
