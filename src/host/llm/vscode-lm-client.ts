/**
 * The "VS Code" provider (issue 35, item 1): the chat models VS Code offers to extensions
 * (vscode.lm.selectChatModels — Copilot's, and those other extensions contribute) behind the
 * core's LlmClient port. Text and tool calls stream as they come; VS Code reports no usage, so
 * tokens are estimated (and budgets count tokens: these models have no price); the window and
 * the token count for the context meter are the model's own (maxInputTokens, countTokens).
 *
 * The first request asks the user's consent (VS Code's prompt, with our justification); a
 * refusal, a quota, a model gone and a cancellation each become the LlmError the chat explains.
 */
import type * as vscode from 'vscode';
import type { EditorModels } from '../../core/llm/editor-models';
import type { LlmClient, LlmRequest, LlmStreamPart, ModelServerInfo, StopReason } from '../../core/llm/llm-client';
import { abortError, LlmError } from '../../core/llm/llm-client';
import { estimateUsage } from '../../core/llm/token-estimate';
import { untilAborted } from '../../core/abort';
import { tokenFor, type VscodeLmSurface } from './vscode-lm-surface';
import { JUSTIFICATION, toLlmErrorFromVscode, toVscodeMessages, toVscodeTools } from './vscode-lm-messages';

/** How a model is named in pickers and messages: "Copilot · GPT-4.1 (gpt-4.1)". */
export function describeChatModel(model: Pick<vscode.LanguageModelChat, 'vendor' | 'name' | 'family'>): string {
  return `${model.vendor} · ${model.name}${model.family && model.family !== model.name ? ` (${model.family})` : ''}`;
}

/**
 * The model the settings name: its id (what the picker writes), else a family or a name;
 * empty, the first model VS Code offers.
 */
export function pickChatModel(
  models: readonly vscode.LanguageModelChat[],
  wanted: string,
): vscode.LanguageModelChat | undefined {
  const name = wanted.trim();
  if (!name) return models[0];
  return (
    models.find((model) => model.id === name) ??
    models.find((model) => model.family === name) ??
    models.find((model) => model.name === name)
  );
}

export class VscodeLmClient implements LlmClient {
  readonly provider = 'vscode';
  readonly server: ModelServerInfo;

  constructor(
    private readonly surface: VscodeLmSurface,
    /** The model the settings name (an id; empty: the first VS Code offers), when a request names none. */
    private readonly wanted: string,
  ) {
    this.server = {
      contextWindow: async (model, signal) => (await this.model(signal, model)).maxInputTokens || undefined,
      countInputTokens: (request, signal) => this.countInputTokens(request, signal),
    };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const models = await untilAborted(Promise.resolve(this.surface.lm.selectChatModels()), signal);
    return models.map((model) => model.id);
  }

  /** The chat model to talk to, or an error that says which models there are. */
  private async model(signal: AbortSignal | undefined, wanted = this.wanted): Promise<vscode.LanguageModelChat> {
    let models: vscode.LanguageModelChat[];
    try {
      models = await untilAborted(Promise.resolve(this.surface.lm.selectChatModels()), signal);
    } catch (error) {
      throw toLlmErrorFromVscode(this.surface, error, 'VS Code', signal);
    }
    const model = pickChatModel(models, wanted);
    if (model) return model;
    if (models.length === 0)
      throw new LlmError(
        'VS Code offers no chat models: install or sign in to an extension that provides them (GitHub Copilot, for example), or choose another provider.',
        'bad_request',
      );
    const offered = models
      .slice(0, 8)
      .map((candidate) => candidate.id)
      .join(', ');
    throw new LlmError(
      `VS Code offers no chat model "${wanted}". It offers: ${offered}${models.length > 8 ? ', …' : ''}. Choose one with "OpenAgent: Choose Provider and Model".`,
      'bad_request',
    );
  }

  async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
    // Routes may send kinds of work to other models of the editor: the request names its own.
    const model = await this.model(request.signal, request.model);
    const label = `the VS Code model ${describeChatModel(model)}`;
    const messages = toVscodeMessages(this.surface, request.system, request.messages);
    const cancellation = tokenFor(this.surface, request.signal);
    const fail = (error: unknown) => toLlmErrorFromVscode(this.surface, error, label, request.signal);
    try {
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await untilAborted(
          Promise.resolve(
            model.sendRequest(
              messages,
              {
                justification: JUSTIFICATION,
                ...(request.tools.length > 0 ? { tools: toVscodeTools(request.tools) } : {}),
              },
              cancellation.token,
            ),
          ),
          request.signal,
        );
      } catch (error) {
        throw fail(error);
      }
      let outputChars = 0;
      let calls = 0;
      const parts = response.stream[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          // Raced with the Stop: a provider that ignores the cancellation cannot hold the run.
          next = await untilAborted(Promise.resolve(parts.next()), request.signal);
        } catch (error) {
          throw fail(error);
        }
        if (next.done) break;
        const part = next.value;
        if (part instanceof this.surface.LanguageModelTextPart) {
          if (typeof part.value !== 'string' || part.value === '') continue;
          outputChars += part.value.length;
          yield { type: 'text_delta', text: part.value };
        } else if (part instanceof this.surface.LanguageModelToolCallPart) {
          // VS Code has no "none" tool mode: a call the request forbade is dropped here.
          if (request.toolChoice === 'none') continue;
          calls++;
          const id = typeof part.callId === 'string' && part.callId ? part.callId : `vscode_call_${calls}`;
          const name = String(part.name);
          yield { type: 'tool_call_start', id, name };
          const input: unknown = part.input;
          const text = safeJson(input);
          outputChars += text.length;
          if (typeof input === 'object' && input !== null && !Array.isArray(input))
            yield { type: 'tool_call', id, name, input };
          else
            yield {
              type: 'tool_call_invalid',
              id,
              name,
              rawArguments: text,
              error: 'The arguments were not a JSON object.',
            };
        }
        // Other parts (thinking, data in newer versions) are not ours to show.
      }
      if (request.signal?.aborted) throw abortError();
      yield { type: 'usage', usage: estimateUsage(request, outputChars), reported: false };
      const stopReason: StopReason = calls > 0 ? 'tool_use' : 'end_turn';
      yield { type: 'finish', stopReason };
    } finally {
      cancellation.dispose();
    }
  }

  /** The request's input as the model's own tokenizer counts it (system, messages, tool schemas). */
  private async countInputTokens(request: LlmRequest, signal?: AbortSignal): Promise<number | undefined> {
    const model = await this.model(signal, request.model);
    const cancellation = tokenFor(this.surface, signal);
    try {
      const messages = toVscodeMessages(this.surface, request.system, request.messages);
      const counts = await untilAborted(
        Promise.all([
          ...messages.map((message) => Promise.resolve(model.countTokens(message, cancellation.token))),
          request.tools.length > 0
            ? Promise.resolve(model.countTokens(JSON.stringify(toVscodeTools(request.tools)), cancellation.token))
            : Promise.resolve(0),
        ]),
        signal,
      );
      return counts.reduce((sum, count) => sum + (Number.isFinite(count) ? count : 0), 0);
    } finally {
      cancellation.dispose();
    }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/** The port the core's model routing asks for the "vscode" provider's clients. */
export function vscodeEditorModels(surface: VscodeLmSurface): EditorModels {
  return { client: (model) => new VscodeLmClient(surface, model) };
}
