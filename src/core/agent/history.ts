/**
 * Small operations that keep the model history valid for the next request, whatever happened:
 * no empty assistant message, no two user messages in a row, and no tool call without its
 * result (an interrupted call is dropped rather than left orphaned). Messages are changed by
 * giving them a new content array, never by editing one in place: the size estimate and the
 * wire conversion cache their work per array.
 */
import type { ModelMessage, TextPart, ThinkingPart, ToolCallPart } from '../llm/llm-client';
import type { ModelTurn } from './model-turn';

/** A prompt as the model receives it: the attached context (mentions) after the typed text. */
export function promptWithContext(text: string, context: string | undefined): string {
  return context ? `${text}\n\n${context}` : text;
}

/** Adds text for the model as a user message, joining the previous user message if that is last. */
export function appendUserText(history: ModelMessage[], text: string): void {
  const last = history.at(-1);
  // A new content array rather than a push: caches keyed on the array see the change.
  if (last?.role === 'user') last.content = [...last.content, { type: 'text', text }];
  else history.push({ role: 'user', content: [{ type: 'text', text }] });
}

/**
 * Records what the model produced as an assistant message. With `includeToolCalls` false (the
 * turn was interrupted or failed) only the text is kept: its tool calls never ran.
 */
export function commitAssistant(
  history: ModelMessage[],
  turn: ModelTurn,
  includeToolCalls: boolean,
): Extract<ModelMessage, { role: 'assistant' }> | undefined {
  const content: Array<TextPart | ThinkingPart | ToolCallPart> = [...turn.thinking];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  if (includeToolCalls) {
    for (const call of turn.toolCalls)
      content.push({ type: 'tool_call', id: call.id, name: call.name, input: call.valid ? call.input : {} });
  }
  // Thinking alone is not an answer the API accepts back; nothing to keep then.
  if (!content.some((part) => part.type !== 'thinking')) return undefined;
  const message: Extract<ModelMessage, { role: 'assistant' }> = { role: 'assistant', content };
  history.push(message);
  return message;
}

/** Removes tool calls that never got a result; removes the message too if nothing is left. */
export function dropToolCalls(
  history: ModelMessage[],
  message: Extract<ModelMessage, { role: 'assistant' }>,
  ids: ReadonlySet<string>,
): void {
  if (ids.size === 0) return;
  message.content = message.content.filter((part) => part.type !== 'tool_call' || !ids.has(part.id));
  if (!message.content.some((part) => part.type !== 'thinking')) {
    const index = history.lastIndexOf(message);
    if (index >= 0) history.splice(index, 1);
  }
}

/** The text of a message's text parts. */
export function textOf(message: ModelMessage): string {
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
