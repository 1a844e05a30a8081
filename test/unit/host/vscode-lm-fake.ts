/**
 * A stand-in for the small part of `vscode` the VS Code provider and tools use (the surface of
 * src/host/llm/vscode-lm-surface.ts): the part classes, LanguageModelError with its codes,
 * cancellation tokens, chat models whose answers a test scripts, and registered tools. The
 * adapters take the surface as a value, so no module loading is faked.
 */
import type * as vscode from 'vscode';
import type { VscodeLmSurface } from '../../../src/host/llm/vscode-lm-surface';

export class TextPart {
  constructor(public value: string) {}
}
export class ToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}
export class ToolResultPart {
  constructor(
    public callId: string,
    public content: unknown[],
  ) {}
}
export class PromptTsxPart {
  constructor(public value: unknown) {}
}
export class ChatMessage {
  constructor(
    public role: number,
    public content: unknown[],
    public name?: string,
  ) {}
  static User(content: string | unknown[]): ChatMessage {
    return new ChatMessage(1, typeof content === 'string' ? [new TextPart(content)] : content);
  }
  static Assistant(content: string | unknown[]): ChatMessage {
    return new ChatMessage(2, typeof content === 'string' ? [new TextPart(content)] : content);
  }
}
export class LmError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
  static NoPermissions(message?: string) {
    return new LmError(message ?? 'no permissions', 'NoPermissions');
  }
  static Blocked(message?: string) {
    return new LmError(message ?? 'blocked', 'Blocked');
  }
  static NotFound(message?: string) {
    return new LmError(message ?? 'not found', 'NotFound');
  }
}

export class FakeToken {
  isCancellationRequested = false;
  private readonly listeners: Array<() => void> = [];
  onCancellationRequested = (listener: () => void) => {
    this.listeners.push(listener);
    return { dispose: () => undefined };
  };
  cancel() {
    if (this.isCancellationRequested) return;
    this.isCancellationRequested = true;
    for (const listener of this.listeners) listener();
  }
}
export class TokenSource {
  readonly token = new FakeToken();
  disposed = false;
  cancel() {
    this.token.cancel();
  }
  dispose() {
    this.disposed = true;
  }
}

/** What one request to a fake model got. */
export interface SentRequest {
  messages: ChatMessage[];
  options: vscode.LanguageModelChatRequestOptions;
  token: FakeToken;
}

/** Answers a request: the parts to stream, or an error to throw before or while streaming. */
export type Answer = (request: SentRequest) => AsyncIterable<unknown> | Promise<never>;

export class FakeChatModel {
  readonly requests: SentRequest[] = [];
  readonly version = '1';
  countTokensCalls = 0;
  constructor(
    readonly id: string,
    readonly name: string,
    readonly vendor: string,
    readonly family: string,
    readonly maxInputTokens: number,
    public answer: Answer = async function* () {
      yield new TextPart('hello');
    },
  ) {}
  async sendRequest(messages: ChatMessage[], options: vscode.LanguageModelChatRequestOptions, token: FakeToken) {
    const request = { messages, options, token };
    this.requests.push(request);
    const stream = await Promise.resolve(this.answer(request));
    return { stream, text: (async function* () {})() };
  }
  async countTokens(text: string | ChatMessage): Promise<number> {
    this.countTokensCalls++;
    const value =
      typeof text === 'string'
        ? text
        : text.content.map((part) => (part instanceof TextPart ? part.value : JSON.stringify(part))).join('');
    return Math.ceil(value.length / 3);
  }
}

export interface FakeTool {
  info: vscode.LanguageModelToolInformation;
  /** The extension that contributes it (its package.json lists it). */
  extension?: string;
  invoke(input: object, token: FakeToken, options: { toolInvocationToken: unknown }): Promise<unknown> | unknown;
}

export function fakeSurface(options: { models?: FakeChatModel[]; tools?: FakeTool[] } = {}) {
  const models = options.models ?? [];
  const tools = options.tools ?? [];
  const invocations: Array<{ name: string; input: object; toolInvocationToken: unknown }> = [];
  const extensionIds = [...new Set(tools.map((tool) => tool.extension).filter((id): id is string => !!id))];
  const surface = {
    lm: {
      selectChatModels: async () => [...models],
      get tools() {
        return tools.map((tool) => tool.info);
      },
      invokeTool: async (
        name: string,
        invocation: { input: object; toolInvocationToken: unknown },
        token: FakeToken,
      ) => {
        invocations.push({ name, input: invocation.input, toolInvocationToken: invocation.toolInvocationToken });
        const tool = tools.find((candidate) => candidate.info.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        return tool.invoke(invocation.input, token, invocation);
      },
    },
    LanguageModelChatMessage: ChatMessage,
    LanguageModelTextPart: TextPart,
    LanguageModelToolCallPart: ToolCallPart,
    LanguageModelToolResultPart: ToolResultPart,
    LanguageModelPromptTsxPart: PromptTsxPart,
    LanguageModelError: LmError,
    CancellationTokenSource: TokenSource,
    extensions: {
      all: [
        ...extensionIds.map((id) => ({
          id,
          packageJSON: {
            contributes: {
              languageModelTools: tools
                .filter((tool) => tool.extension === id)
                .map((tool) => ({ name: tool.info.name })),
            },
          },
        })),
        { id: 'vscode.git', packageJSON: { contributes: { languageModelTools: 'not a list' } } },
      ],
    },
  };
  return { surface: surface as unknown as VscodeLmSurface, invocations, models };
}

export function toolInfo(name: string, inputSchema?: object, description = `The ${name} tool`) {
  return { name, description, inputSchema, tags: ['test'] } as vscode.LanguageModelToolInformation;
}

export function textResult(text: string) {
  return { content: [new TextPart(text)] };
}
