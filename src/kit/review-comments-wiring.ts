/**
 * Review comments wired into the window (issue 36): one book of comments for the window, the
 * comments UI over it, and each session's conversation telling the book when a message of
 * comments started (the agent received them) and when its run ended (answered, or to send again).
 * A session added later is followed too; one that ends stops being followed.
 */
import type * as vscode from 'vscode';
import { CommentBook } from '../core/review/comment-book';
import type { ConversationSession } from '../core/session/conversation-session';
import type { SessionRegistry } from '../core/session/session-registry';
import { ReviewCommentController } from '../host/review/review-comments';
import type { SessionReviews } from '../host/review/session-reviews';
import type { CommandHandler } from '../host/commands/palette';

export function wireReviewComments(
  context: vscode.ExtensionContext,
  sessions: { registry: Pick<SessionRegistry, 'get' | 'list' | 'onDidChange'>; reviews: SessionReviews },
): Record<string, CommandHandler> {
  const book = new CommentBook();
  const { registry } = sessions;
  const sessionOf = (id: string): ConversationSession | undefined => registry.get(id)?.session;
  const controller = new ReviewCommentController(book, sessions.reviews, async (id, text) => {
    const session = sessionOf(id);
    if (!session) return { problem: 'the session these comments are on has ended.' };
    const queued = session.isBusy;
    const problem = await session.submit(text);
    return problem ? { problem: problem.message } : { queued };
  });
  context.subscriptions.push(controller);

  // Each session's conversation, followed while it is listed.
  const followed = new Map<string, { session: ConversationSession; stop: () => void }>();
  const follow = () => {
    const live = new Map(
      registry.list().flatMap((view) => {
        const session = sessionOf(view.id);
        return session ? [[view.id, session] as const] : [];
      }),
    );
    for (const [id, entry] of followed)
      if (live.get(id) !== entry.session) {
        entry.stop();
        followed.delete(id);
      }
    for (const [id, session] of live) {
      if (followed.has(id)) continue;
      const stops = [
        session.onEvent((event) => {
          if (event.type === 'user_message') book.prompted(id, event.text);
        }),
        session.queue.onRunEnd((end) => book.runEnded(id, end.outcome, end.next?.text)),
        session.onReset(() => book.reset(id)),
      ];
      followed.set(id, { session, stop: () => stops.forEach((stop) => stop()) });
    }
  };
  follow();
  const stopRegistry = registry.onDidChange(follow);
  context.subscriptions.push({
    dispose: () => {
      stopRegistry();
      for (const entry of followed.values()) entry.stop();
      followed.clear();
    },
  });
  return controller.handlers();
}
