/**
 * The developer panel's Forks tab, host side (SPEC 5b): the tree of forks the shown conversation
 * is in, posted when the panel catches up and again whenever it may have changed — a fork made
 * (`conversation_forked`), another conversation opened (a reset), a run ended (its title) — and
 * a clicked row opened. No `vscode` import: unit-tested in Node against a real store.
 */
import type { AgentEvent } from '../../core/events/events';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { HostToPanel } from '../../protocol/messages';
import { forkRows } from './fork-rows';

/** What the Forks tab needs of the session. */
export type ForksSession = Pick<ConversationSession, 'forks' | 'currentId' | 'isBusy' | 'open' | 'onEvent' | 'onReset'>;

/**
 * Shows a saved conversation for the panel: the answer in words when it did not (or undefined).
 * The window's sessions give one that first brings forward a session already showing it.
 */
export type ConversationOpener = (conversationId: string, session: ForksSession) => Promise<string | undefined>;

/** The events after which the tree may read differently. */
const CHANGES: ReadonlySet<AgentEvent['type']> = new Set(['conversation_forked', 'done', 'error', 'interrupted']);

export class PanelForks {
  private dirty = false;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly stop: () => void;

  constructor(
    private readonly session: ForksSession,
    private readonly post: (message: HostToPanel) => void,
    private readonly opener: ConversationOpener = openInSession,
  ) {
    const stopEvents = session.onEvent((event) => {
      if (CHANGES.has(event.type)) this.refresh();
    });
    const stopResets = session.onReset(() => this.refresh());
    this.stop = () => (stopEvents(), stopResets());
  }

  /**
   * Reads the tree and posts it, soon. Many asks in a row (a reopened conversation replays its
   * events) make one read; an ask while one runs makes one more after it, so the last is current.
   */
  refresh(): Promise<void> {
    this.dirty = true;
    return (this.running ??= this.drain().finally(() => (this.running = undefined)));
  }

  /** A row was clicked: that conversation is shown, or the panel is told why not. */
  async open(conversationId: string): Promise<void> {
    if (conversationId === this.session.currentId) return;
    const inTree = await this.inTree(conversationId);
    const problem = inTree
      ? await this.opener(conversationId, this.session).catch((error: unknown) =>
          error instanceof Error ? error.message : String(error),
        )
      : 'That conversation is not in this tree of forks any more: the list was refreshed.';
    if (problem) this.post({ type: 'forks_notice', level: 'warning', text: problem.slice(0, 2_000) });
    await this.refresh();
  }

  dispose(): void {
    this.stopped = true;
    this.stop();
  }

  private async drain(): Promise<void> {
    // Lets the events of one synchronous burst (a replay) all ask before the first read.
    await Promise.resolve();
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      const message = await this.read().catch(() => undefined);
      if (message && !this.stopped && !this.dirty) this.post(message);
    }
  }

  private async read(): Promise<HostToPanel> {
    const shown = this.session.currentId;
    const tree = await this.session.forks.tree(shown);
    if (!tree) return { type: 'fork_tree', rows: [], total: 0 };
    const { rows, total } = await forkRows(tree, shown, (id) => this.session.forks.points(id));
    return { type: 'fork_tree', rows, total };
  }

  /** Only a conversation of the shown one's tree is opened from here (the webview is untrusted). */
  private async inTree(conversationId: string): Promise<boolean> {
    const tree = await this.session.forks.tree().catch(() => undefined);
    const stack = tree ? [tree] : [];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.conversation.id === conversationId) return true;
      stack.push(...node.forks);
    }
    return false;
  }
}

/** Opens the conversation in the session the panel follows, as Show History does; never mid-run. */
export async function openInSession(conversationId: string, session: ForksSession): Promise<string | undefined> {
  if (session.isBusy)
    return 'The agent is working in this session: stop it first, then open the fork (opening it would end the run).';
  if (!(await session.open(conversationId))) return 'That conversation is no longer saved: it cannot be opened.';
  return undefined;
}

/** The window's sessions as the Forks tab uses them (SessionRegistry). */
export interface ShownSessions {
  list(): ReadonlyArray<{ id: string }>;
  get(id: string): { session: { currentId: string | undefined } } | undefined;
  show(id: string): unknown;
}

/**
 * Shows a clicked fork: a session of the window that already has it on screen is brought forward
 * (the chat and the panel follow it); otherwise it is reopened in the session the panel follows.
 */
export function openAcrossSessions(sessions: ShownSessions): ConversationOpener {
  return async (conversationId, session) => {
    const showing = sessions.list().find((view) => sessions.get(view.id)?.session.currentId === conversationId);
    if (!showing) return openInSession(conversationId, session);
    sessions.show(showing.id);
    return undefined;
  };
}
