/**
 * Reopening a conversation from the store: its stored messages become (a) the events a surface
 * replays to show it as it was, and (b) the model history the agent continues from — prompts,
 * answers, tool calls paired with their results. A tool call whose result was never stored (the
 * window closed mid-call) is left out, so the history is always valid to send.
 */
import type { ModelMessage, ToolCallPart, ToolResultPart } from '../llm/llm-client';
import type { StoredMessage } from '../ports';
import { agentEventSchema, type AgentEvent } from '../events/events';
import { appendUserText, promptWithContext } from '../agent/history';

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
    const content = (message.content ?? {}) as { text?: unknown; attachments?: unknown; context?: unknown };
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
  // Sub-agents' and teammates' tool calls are in the record, but not in the lead's history.
  return { events, history: historyFrom(events.filter((event) => event.agentId === 'lead')), nextSeq };
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
      });

  const history: ModelMessage[] = [];
  let assistant: Extract<ModelMessage, { role: 'assistant' }> | undefined;
  let pendingResults: ToolResultPart[] = [];
  /** Calls in the current answer whose results are still to come. */
  const answered = new Set<string>();
  const closeAssistant = () => {
    if (assistant && assistant.content.length > 0) history.push(assistant);
    assistant = undefined;
    if (pendingResults.length > 0) history.push({ role: 'user', content: pendingResults });
    pendingResults = [];
  };
  for (const event of events) {
    if (event.type === 'user_message') {
      closeAssistant();
      const text = promptWithContext(event.text, event.context);
      const last = history.at(-1);
      if (last?.role === 'user') last.content = [...last.content, { type: 'text', text }];
      else history.push({ role: 'user', content: [{ type: 'text', text }] });
    } else if (event.type === 'review_note') {
      // Given to the model at the top of a turn, after what came before it: the same place again.
      closeAssistant();
      appendUserText(history, event.text);
    } else if (event.type === 'text_delta') {
      if (pendingResults.length > 0) closeAssistant();
      assistant ??= { role: 'assistant', content: [] };
      assistant.content.push({ type: 'text', text: event.text });
    } else if (event.type === 'tool_call') {
      const result = results.get(event.toolCallId);
      if (!result) continue;
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

/** A stored prompt as its event: the labels of what was attached and the attached text, when stored. */
function userMessage(text: string, stored: { attachments?: unknown; context?: unknown }) {
  const attachments = Array.isArray(stored.attachments)
    ? stored.attachments.filter((label): label is string => typeof label === 'string')
    : [];
  return {
    type: 'user_message' as const,
    text,
    ...(attachments.length ? { attachments } : {}),
    ...(typeof stored.context === 'string' && stored.context ? { context: stored.context } : {}),
  };
}
