/**
 * A waiting session's questions come back when the user shows it (issue 33): with several
 * sessions, an approval notification that waited a while hides in the notification center, and
 * the session list says "waiting for you" with nothing on screen to answer. Show Session (a
 * click on the row, the palette) puts the session's waiting questions up again as fresh
 * notifications; the gate makes sure the question is answered once (pending-question.ts).
 */
import type { ConversationSession } from '../../core/session/conversation-session';
import type { SessionRegistry } from '../../core/session/session-registry';
import type { CommandHandler } from '../commands/palette';

/** What a session's approval gate offers here. */
export interface ResurfacingApprovals {
  /** Shows each waiting question again; returns how many. */
  resurface(): number;
}

/**
 * The commands, with Show Session (`showCommand`, session-list-view.ts's, passed in so this file
 * needs no editor) also showing the shown session's waiting questions again.
 */
export function withPendingApprovals(
  commands: Record<string, CommandHandler>,
  showCommand: string,
  registry: Pick<SessionRegistry, 'get' | 'shown'>,
  approvalsOf: (session: ConversationSession) => ResurfacingApprovals | undefined,
): Record<string, CommandHandler> {
  const show = commands[showCommand] as ((id?: unknown) => unknown) | undefined;
  if (!show) return commands;
  const showing = async (id?: unknown): Promise<unknown> => {
    const before = registry.shown.id;
    const result = await show(id);
    const shown = registry.shown;
    // The row clicked (shown already or just now), or a session picked from the palette's list.
    const asked = typeof id === 'string' ? id === shown.id : shown.id !== before;
    if (asked) approvalsOf(shown.session)?.resurface();
    return result;
  };
  return { ...commands, [showCommand]: showing as CommandHandler };
}
