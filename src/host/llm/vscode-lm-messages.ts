/**
 * Our model messages as VS Code's (LanguageModelChatMessage with text, tool call and tool result
 * parts), and VS Code's failures as our LlmError kinds, so the chat says what to do and the retry
 * wrapper retries only what a retry can fix.
 *
 * VS Code's chat messages have no system role and no thinking: the system prompt goes first as a
 * user message (what VS Code's own guide does), and thinking blocks — another vendor's signed
 * data — are left out. A tool result has no error flag: an error says so in its text.
 */
import type * as vscode from 'vscode';
import type { ModelMessage, ToolDefinition } from '../../core/llm/llm-client';
import { abortError, LlmError } from '../../core/llm/llm-client';
import { imageWithheldNote } from '../../core/images/image-notes';
import type { VscodeLmSurface } from './vscode-lm-surface';

type MessageClasses = Pick<
  VscodeLmSurface,
  'LanguageModelChatMessage' | 'LanguageModelTextPart' | 'LanguageModelToolCallPart' | 'LanguageModelToolResultPart'
>;

/** Marks a tool result that was an error, since VS Code's tool result part cannot say it. */
export const TOOL_ERROR_PREFIX = 'Error: ';

export function toVscodeMessages(
  surface: MessageClasses,
  system: string,
  messages: readonly ModelMessage[],
): vscode.LanguageModelChatMessage[] {
  const { LanguageModelChatMessage, LanguageModelTextPart, LanguageModelToolCallPart, LanguageModelToolResultPart } =
    surface;
  const converted: vscode.LanguageModelChatMessage[] = [];
  if (system.trim()) converted.push(LanguageModelChatMessage.User(system));
  for (const message of messages) {
    if (message.role === 'user') {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart> = [];
      for (const part of message.content) {
        if (part.type === 'text') parts.push(new LanguageModelTextPart(part.text));
        // The editor's model API is given text only here: the model reads why it sees no picture.
        else if (part.type === 'image')
          parts.push(new LanguageModelTextPart(imageWithheldNote(part, 'this editor model')));
        else
          parts.push(
            new LanguageModelToolResultPart(part.toolCallId, [
              new LanguageModelTextPart(part.isError ? `${TOOL_ERROR_PREFIX}${part.output}` : part.output),
            ]),
          );
      }
      if (parts.length > 0) converted.push(LanguageModelChatMessage.User(parts));
    } else {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      for (const part of message.content) {
        if (part.type === 'text') parts.push(new LanguageModelTextPart(part.text));
        else if (part.type === 'tool_call')
          parts.push(new LanguageModelToolCallPart(part.id, part.name, objectInput(part.input)));
        // thinking: VS Code's messages cannot carry it.
      }
      if (parts.length > 0) converted.push(LanguageModelChatMessage.Assistant(parts));
    }
  }
  return converted;
}

/** A tool call's input as VS Code wants it: an object (a model may have sent anything). */
function objectInput(input: unknown): object {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
}

export function toVscodeTools(tools: readonly ToolDefinition[]): vscode.LanguageModelChatTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
}

/** The words VS Code's consent prompt shows under "OpenAgent wants to use …". */
export const JUSTIFICATION =
  'OpenAgent sends your conversation with it (your prompts, the files and command output it reads) to this model.';

/**
 * VS Code's failure as an LlmError. `label` names the model ("VS Code model Copilot GPT-4.1").
 * LanguageModelError codes: NoPermissions (no consent), Blocked (the requester is blocked: quota
 * or abuse limits), NotFound (the model is gone). Providers' own errors come as plain Errors
 * whose words are all there is to go on (a rate limit, a quota, a prompt too long).
 */
export function toLlmErrorFromVscode(
  surface: Pick<VscodeLmSurface, 'LanguageModelError'>,
  error: unknown,
  label: string,
  signal: AbortSignal | undefined,
): Error {
  if (signal?.aborted) return abortError();
  if (error instanceof LlmError) return error;
  const message = error instanceof Error ? error.message.trim() : String(error).trim();
  const words = message || 'no reason given';
  const code =
    error instanceof surface.LanguageModelError
      ? error.code
      : typeof (error as { code?: unknown } | undefined)?.code === 'string'
        ? String((error as { code: string }).code)
        : '';
  if (code === 'NoPermissions' || /NoPermissions/.test(code))
    return new LlmError(
      `VS Code did not let OpenAgent use ${label}: ${words}. Send the prompt again and allow it when VS Code asks, or choose another model with "OpenAgent: Choose Provider and Model".`,
      'authentication',
    );
  if (code === 'Blocked' || /Blocked/.test(code))
    return new LlmError(
      `${label} refused the request: OpenAgent is blocked from using it for now (${words}). Wait, or choose another model.`,
      'rate_limit',
    );
  if (code === 'NotFound' || /NotFound/.test(code))
    return new LlmError(
      `VS Code no longer offers ${label} (${words}). Choose another model with "OpenAgent: Choose Provider and Model".`,
      'bad_request',
    );
  if ((error as { name?: unknown } | undefined)?.name === 'Canceled' || /^Canceled$/i.test(message))
    return new LlmError(`${label} cancelled the request.`, 'stream');
  if (/quota|premium requests|exceeded your/i.test(message))
    return new LlmError(`${label}: the plan's quota is used up (${words}). Choose another model.`, 'rate_limit');
  // A rate limit passes: status 429 lets the retry wrapper wait and try again.
  if (/rate.?limit|too many requests|\b429\b/i.test(message))
    return new LlmError(`${label} is rate limiting requests: ${words}`, 'rate_limit', 429);
  if (/prompt is too long|context (?:length|window)|too many tokens|exceeds? .*token/i.test(message))
    return new LlmError(
      `${label} says the conversation does not fit the model's context window: ${words}`,
      'context_overflow',
    );
  return new LlmError(`${label} failed: ${words}`, 'server');
}
