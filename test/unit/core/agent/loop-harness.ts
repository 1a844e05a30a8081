/**
 * Runs conversations against the fake model server in either wire format, with a handful of
 * honest test tools, and records every event and request.
 */
import { z } from 'zod';
import { Conversation, type ConversationOptions } from '../../../../src/core/agent/conversation';
import type { AgentEvent } from '../../../../src/core/events/events';
import { AnthropicClient } from '../../../../src/core/llm/anthropic/anthropic-client';
import type { LlmClient } from '../../../../src/core/llm/llm-client';
import { OpenAiClient } from '../../../../src/core/llm/openai/openai-client';
import { defineTool, type AnyTool } from '../../../../src/core/tools/tool';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { FakeModelServer, type RecordedRequest } from '../../../fixtures/fake-model-server/server';

export const PROTOCOLS = ['anthropic', 'openai'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export function clientFor(protocol: Protocol, server: FakeModelServer): LlmClient {
  return protocol === 'anthropic'
    ? new AnthropicClient({ apiKey: 'sk-ant-harness-key-0000', baseUrl: server.anthropicBaseUrl })
    : new OpenAiClient({
        provider: 'openai-compatible',
        label: 'fake',
        apiKey: 'sk-harness',
        baseUrl: server.openAiBaseUrl,
      });
}

export const files: Record<string, string> = { 'src/app.ts': 'export const answer = 42;\n' };
export const writes: Array<{ path: string; content: string }> = [];

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  inputSchema: z.object({ path: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
  readOnly: true,
  needsApproval: false,
  async execute({ path }) {
    const content = files[path];
    return content === undefined ? { output: `No such file: ${path}`, isError: true } : content;
  },
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  inputSchema: z.object({ path: z.string(), content: z.string() }),
  readOnly: false,
  needsApproval: true,
  summarize: ({ path }) => `Write ${path}`,
  async execute({ path, content }) {
    writes.push({ path, content });
    return `Wrote ${content.length} characters to ${path}.`;
  },
});

/** Runs until cancelled: stands for a long build or test run. */
export const slowTool = defineTool({
  name: 'slow_tool',
  description: 'Takes a long time.',
  inputSchema: z.object({}),
  readOnly: true,
  needsApproval: false,
  execute: (_input, context) =>
    new Promise<string>((_resolve, reject) => {
      context.signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
    }),
});

export const failingTool = defineTool({
  name: 'failing_tool',
  description: 'Always throws.',
  inputSchema: z.object({}),
  readOnly: true,
  needsApproval: false,
  async execute() {
    throw new Error('disk on fire');
  },
});

export const hugeOutputTool = defineTool({
  name: 'huge_output',
  description: 'Returns a lot.',
  inputSchema: z.object({}),
  readOnly: true,
  needsApproval: false,
  async execute() {
    return 'x'.repeat(200_000);
  },
});

/** A scenario tool call that reads the one test file. */
export const readCall = { id: 'call_read', name: 'read_file', arguments: { path: 'src/app.ts' } };

export const TEST_TOOLS: AnyTool[] = [readFileTool, writeFileTool, slowTool, failingTool, hugeOutputTool];

export interface Harness {
  server: FakeModelServer;
  conversation: Conversation;
  events: AgentEvent[];
  /** Bodies of the model requests, in order. */
  bodies(): Array<Record<string, unknown>>;
  calls(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startHarness(
  protocol: Protocol,
  scenario: ScenarioInput,
  options: Partial<ConversationOptions> = {},
): Promise<Harness> {
  const server = await FakeModelServer.start({ scenario });
  writes.length = 0;
  let now = 1_000;
  const conversation = new Conversation({
    id: 'conv-test',
    model: { llm: clientFor(protocol, server), model: protocol === 'anthropic' ? 'claude-sonnet-4-6' : 'gpt-4.1' },
    system: 'You are a test agent.',
    clock: { now: () => now++ },
    tools: TEST_TOOLS,
    retry: { maxRetries: 0 },
    ...options,
  });
  const events: AgentEvent[] = [];
  conversation.subscribe((event) => events.push(event));
  return {
    server,
    conversation,
    events,
    bodies: () => server.modelCalls.map((call) => call.body as Record<string, unknown>),
    calls: () => server.modelCalls,
    close: () => server.close(),
  };
}

/** Event types in order, with runs of text_delta collapsed into one. */
export function eventTrace(events: AgentEvent[]): string[] {
  const trace: string[] = [];
  for (const event of events) {
    const label =
      event.type === 'usage'
        ? `usage:${event.scope}`
        : event.type === 'tool_result'
          ? `tool_result:${event.toolName}${event.isError ? ':error' : ''}`
          : event.type === 'tool_call'
            ? `tool_call:${event.toolName}`
            : event.type === 'done'
              ? `done:${event.stopReason}`
              : event.type === 'model_call'
                ? `model_call:${event.state}`
                : event.type;
    if (label === 'text_delta' && trace.at(-1) === 'text_delta') continue;
    trace.push(label);
  }
  return trace;
}

export function answerText(events: AgentEvent[]): string {
  return events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
}

/** The tool results a request carried back to the model, in either wire format. */
export function toolResultsIn(
  protocol: Protocol,
  body: Record<string, unknown>,
): Array<{ id: string; content: string; isError?: boolean }> {
  const messages = body.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
  if (protocol === 'openai') {
    return messages
      .filter((message) => message.role === 'tool')
      .map((message) => ({ id: message.tool_call_id!, content: String(message.content) }));
  }
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type: string; tool_use_id?: string; content?: string; is_error?: boolean }>)
          .filter((block) => block.type === 'tool_result')
          .map((block) => ({ id: block.tool_use_id!, content: String(block.content), isError: block.is_error }))
      : [],
  );
}

/** Every tool call id the request's assistant messages carry. */
export function toolCallIdsIn(protocol: Protocol, body: Record<string, unknown>): string[] {
  const messages = body.messages as Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string }> }>;
  if (protocol === 'openai') return messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type: string; id?: string }>)
          .filter((block) => block.type === 'tool_use')
          .map((block) => block.id!)
      : [],
  );
}
