/**
 * Reopening a conversation from the store: its stored messages become (a) the events a surface
 * replays to show it as it was — a run the window closed on ends as interrupted (run-ends.ts) —
 * and (b) the model history the agent continues from — prompts, answers, tool calls paired with
 * their results. A tool call whose result was never stored (the window closed mid-call) is left
 * out, and a prompt whose run failed before any answer is dropped (as the live conversation drops
 * it, so Retry sends it once): the history is always valid to send. Images are references here
 * (ImageParts without bytes): withStoredImages (images/stored-images.ts) reads them back.
 */
import type { ModelMessage, ToolCallPart, ToolResultPart } from '../llm/llm-client';
import type { StoredMessage } from '../ports';
import { agentEventSchema, type AgentEvent } from '../events/events';
import { appendUserText, promptWithContext } from '../agent/history';
import { endUnfinishedRuns, isRunEnd } from './run-ends';
import { pendingImage } from '../images/stored-images';
import type { ImageReference } from '../images/user-images';

export interface RestoredConversation {
  events: AgentEvent[];
  history: ModelMessage[];
  /** The next event sequence number. */
  nextSeq: number;
}

export function restoreConversation(conversationId: string, stored: readonly StoredMessage[]): RestoredConversation {
  const events: AgentEvent[] = [];
  const base = { conversationId, agentId: 'lead' };
  for (const message of [...stored].sort((a, b) => a.seq - b.seq)) {
    const content = (message.content ?? {}) as {
      text?: unknown;
      attachments?: unknown;
      context?: unknown;
      hookContext?: unknown;
      retryOf?: unknown;
      images?: unknown;
    };
    const time = message.createdAt;
    if (message.role === 'user' && typeof content.text === 'string')
      events.push({ ...base, seq: message.seq, time, ...userMessage(content.text, content) });
    else if (message.role === 'assistant' && typeof content.text === 'string')
      events.push({ ...base, seq: message.seq, time, type: 'text_delta', text: content.text });
    else if (message.role === 'event') {
      const parsed = agentEventSchema.safeParse(message.content);
      // An event this version does not know is skipped, not fatal.
      if (parsed.success) events.push({ ...parsed.data, conversationId });
    }
  }
  const nextSeq = Math.max(-1, ...stored.map((message) => message.seq), ...events.map((event) => event.seq)) + 1;
  const ended = endUnfinishedRuns(events);
  // Sub-agents' and teammates' tool calls are in the record, but not in the lead's history.
  return { events: ended, history: historyFrom(ended.filter((event) => event.agentId === 'lead')), nextSeq };
}

/** The model history the events describe. */
function historyFrom(events: readonly AgentEvent[]): ModelMessage[] {
  const results = new Map<string, ToolResultPart>();
  for (const event of events)
    if (event.type === 'tool_result')
      results.set(event.toolCallId, {
        type: 'tool_result',
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        output: event.output,
        isError: event.isError,
        ...(event.images?.length ? { images: event.images.map(pendingImage) } : {}),
      });

  const history: ModelMessage[] = [];
  let assistant: Extract<ModelMessage, { role: 'assistant' }> | undefined;
  let pendingResults: ToolResultPart[] = [];
  /** Where the history stood when the run in progress began, until the model answers in it. */
  let unanswered: { length: number; lastParts: number } | undefined;
  let inRun = false;
  /** Calls in the current answer whose results are still to come. */
  const answered = new Set<string>();
  const closeAssistant = () => {
    if (assistant && assistant.content.length > 0) history.push(assistant);
    assistant = undefined;
    if (pendingResults.length > 0) history.push({ role: 'user', content: pendingResults });
    pendingResults = [];
  };
  for (const event of events) {
    if (isRunEnd(event)) {
      closeAssistant();
      // As the live conversation does: a prompt that got no answer at all leaves no trace.
      if (event.type === 'error' && unanswered) rollBack(history, unanswered);
      unanswered = undefined;
      inRun = false;
    } else if (event.type === 'user_message') {
      closeAssistant();
      if (!inRun) unanswered = { length: history.length, lastParts: history.at(-1)?.content.length ?? 0 };
      inRun = true;
      const context = [event.context, event.hookContext].filter(Boolean).join('\n\n');
      const text = promptWithContext(event.text, context || undefined);
      const parts = [{ type: 'text' as const, text }, ...(event.images ?? []).map(pendingImage)];
      const last = history.at(-1);
      if (last?.role === 'user') last.content = [...last.content, ...parts];
      else history.push({ role: 'user', content: parts });
    } else if (event.type === 'review_note') {
      // Given to the model at the top of a turn, after what came before it: the same place again.
      closeAssistant();
      appendUserText(history, event.text);
    } else if (event.type === 'text_delta') {
      unanswered = undefined;
      if (pendingResults.length > 0) closeAssistant();
      assistant ??= { role: 'assistant', content: [] };
      assistant.content.push({ type: 'text', text: event.text });
    } else if (event.type === 'tool_call') {
      const result = results.get(event.toolCallId);
      if (!result) continue;
      unanswered = undefined;
      if (pendingResults.length > 0) closeAssistant();
      assistant ??= { role: 'assistant', content: [] };
      const call: ToolCallPart = { type: 'tool_call', id: event.toolCallId, name: event.toolName, input: event.input };
      assistant.content.push(call);
      answered.add(event.toolCallId);
    } else if (event.type === 'tool_result' && answered.delete(event.toolCallId)) {
      // Results follow the calls of one answer; the next text or call starts a new answer.
      pendingResults.push(results.get(event.toolCallId)!);
    }
  }
  closeAssistant();
  // The model speaks after the user: a history may not start with an answer.
  while (history[0]?.role === 'assistant') history.shift();
  return history;
}

/** Takes back what a run added to the history since `mark` (its prompt, in a new array: see Conversation). */
function rollBack(history: ModelMessage[], mark: { length: number; lastParts: number }): void {
  history.splice(mark.length);
  const last = history.at(-1);
  if (last?.role === 'user') last.content = last.content.slice(0, mark.lastParts);
}

/** A stored prompt as its event: the labels of what was attached and the attached text, when stored. */
function userMessage(
  text: string,
  stored: { attachments?: unknown; context?: unknown; hookContext?: unknown; retryOf?: unknown; images?: unknown },
) {
  const attachments = Array.isArray(stored.attachments)
    ? stored.attachments.filter((label): label is string => typeof label === 'string')
    : [];
  const images = Array.isArray(stored.images) ? stored.images.filter(isImageReference) : [];
  return {
    type: 'user_message' as const,
    text,
    ...(images.length ? { images } : {}),
    ...(attachments.length ? { attachments } : {}),
    ...(typeof stored.context === 'string' && stored.context ? { context: stored.context } : {}),
    ...(typeof stored.hookContext === 'string' && stored.hookContext ? { hookContext: stored.hookContext } : {}),
    ...(Number.isSafeInteger(stored.retryOf) && (stored.retryOf as number) >= 0
      ? { retryOf: stored.retryOf as number }
      : {}),
  };
}

/** A stored image reference as the recorder writes it (anything else in its place is skipped). */
function isImageReference(value: unknown): value is ImageReference {
  const image = value as Partial<ImageReference> | null;
  return (
    typeof image === 'object' &&
    image !== null &&
    typeof image.sha256 === 'string' &&
    typeof image.mediaType === 'string' &&
    Number.isSafeInteger(image.width) &&
    Number.isSafeInteger(image.height) &&
    (image.width as number) > 0 &&
    (image.height as number) > 0 &&
    (image.name === undefined || typeof image.name === 'string')
  );
}
