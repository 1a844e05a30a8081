/** A side answer (`/btw`) as the chat page gets it: the question cut to what the protocol carries. */
import type { SideAnswer } from '../../core/session/side-questions';
import type { HostToWebview } from '../../protocol/messages';

export function sideAnswerMessage(answer: SideAnswer): Extract<HostToWebview, { type: 'side_answer' }> {
  return {
    type: 'side_answer',
    id: answer.id,
    question: answer.question.slice(0, 1_000),
    status: answer.status,
    text: answer.text,
    ...(answer.note ? { note: answer.note.slice(0, 10_000) } : {}),
    ...(answer.usage ? { usage: answer.usage } : {}),
  };
}
