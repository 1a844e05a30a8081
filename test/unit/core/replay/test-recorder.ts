/**
 * Records a real run (a Conversation against the fake model server) into an in-memory
 * RecordingStore, the way the product's recorder does per the contract (src/core/replay/
 * recording.ts): model calls at the client (one step per attempt), tool calls with their
 * decision and result, prompts, interrupts. The replay tests replay what this records and
 * compare with the events the original run emitted.
 */
import { Conversation, type ConversationOptions } from '../../../../src/core/agent/conversation';
import type { AgentEvent } from '../../../../src/core/events/events';
import { LlmError, type LlmClient, type LlmRequest, type LlmStreamPart } from '../../../../src/core/llm/llm-client';
import { hashArguments, type ApprovalGate } from '../../../../src/core/policy/approval';
import {
  RECORDING_FORMAT,
  type ContentRef,
  type ModelStep,
  type RecordedStep,
  type RecordingStore,
  type RunManifest,
  type RunRecording,
  type ToolStep,
} from '../../../../src/core/replay/recording';
import type { AnyTool } from '../../../../src/core/tools/tool';

export function refOf(value: unknown): ContentRef {
  return `sha256:${hashArguments(value)}`;
}

/** A RecordingStore in memory; values kept as a store would (a JSON copy). */
export class MemoryRecordingStore implements RecordingStore {
  readonly content = new Map<string, unknown>();
  readonly recordings = new Map<string, RunRecording>();

  put(value: unknown): ContentRef {
    const ref = refOf(value);
    this.content.set(ref, JSON.parse(JSON.stringify(value)));
    return ref;
  }
  async putContent(ref: ContentRef, value: unknown): Promise<void> {
    this.content.set(ref, JSON.parse(JSON.stringify(value)));
  }
  async getContent(ref: ContentRef): Promise<unknown> {
    return this.content.get(ref);
  }
  async hasContent(ref: ContentRef): Promise<boolean> {
    return this.content.has(ref);
  }
  async saveManifest(manifest: RunManifest): Promise<void> {
    const existing = this.recordings.get(manifest.conversationId);
    this.recordings.set(manifest.conversationId, { manifest, steps: existing?.steps ?? [] });
  }
  async putStep(conversationId: string, step: RecordedStep): Promise<void> {
    this.recordings.get(conversationId)!.steps.push(step);
  }
  async getRecording(conversationId: string): Promise<RunRecording | undefined> {
    const recording = this.recordings.get(conversationId);
    return recording && JSON.parse(JSON.stringify(recording));
  }
}

export interface RecordedRun {
  store: MemoryRecordingStore;
  conversation: Conversation;
  events: AgentEvent[];
  /** Saves the manifest and steps; returns the recording. */
  finish(): Promise<RunRecording>;
}

/**
 * A Conversation whose model calls, tools and approvals are recorded. `options` are the
 * conversation's (model, system, tools, approvals…); the recorder wraps them.
 */
export function recordedConversation(options: ConversationOptions): RecordedRun {
  const store = new MemoryRecordingStore();
  const steps: RecordedStep[] = [];
  let next = 1;
  const events: AgentEvent[] = [];
  const openSubagents: string[] = [];
  const agentNow = () => openSubagents.at(-1) ?? 'lead';
  const toolSteps = new Map<string, ToolStep>();
  const pendingCalls = new Map<string, { name: string; input: unknown }>();
  let lastWork = 0;
  let interruptedBefore: AgentEvent | undefined;
  let firstRequest: LlmRequest | undefined;
  const now = () => options.clock.now();

  const toolStep = (agentId: string, toolCallId: string, name?: string): ToolStep => {
    const key = `${agentId}\u0000${toolCallId}`;
    let step = toolSteps.get(key);
    if (!step) {
      const call = pendingCalls.get(key);
      step = {
        kind: 'tool',
        step: next++,
        agentId,
        toolCallId,
        toolName: call?.name ?? name ?? '?',
        input: store.put(call?.input ?? null),
        startedAt: now(),
        durationMs: 0,
      };
      toolSteps.set(key, step);
      steps.push(step);
      lastWork = step.step;
    }
    return step;
  };

  const wrapClient = (llm: LlmClient, work: string): LlmClient => ({
    provider: llm.provider,
    listModels: (signal) => llm.listModels(signal),
    server: llm.server,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      const { signal: _signal, onSilence: _onSilence, ...sent } = request;
      if (!firstRequest && agentNow() === 'lead') firstRequest = request;
      const step: ModelStep = {
        kind: 'model',
        step: next++,
        agentId: agentNow(),
        work,
        provider: llm.provider,
        model: request.model,
        request: store.put(sent),
        answer: '' as ContentRef,
        startedAt: now(),
        durationMs: 0,
      };
      steps.push(step);
      lastWork = step.step;
      const parts: LlmStreamPart[] = [];
      try {
        for await (const part of llm.stream(request)) {
          parts.push(part);
          if (part.type === 'finish') step.stopReason = part.stopReason;
          yield part;
        }
      } catch (error) {
        step.error = {
          message: error instanceof Error ? error.message : String(error),
          ...(error instanceof LlmError ? { kind: error.kind, ...(error.status ? { status: error.status } : {}) } : {}),
        };
        throw error;
      } finally {
        step.answer = store.put({ parts });
        step.durationMs = now() - step.startedAt;
      }
    },
  });

  const wrapTool = (tool: AnyTool): AnyTool => ({
    ...tool,
    execute: (input, context) => {
      toolStep(context.agentId, context.toolCallId, tool.name);
      return tool.execute(input, context);
    },
  });

  const wrapGate = (gate: ApprovalGate | undefined): ApprovalGate | undefined => gate;

  const binding = options.model;
  const conversation = new Conversation({
    ...options,
    model: { ...binding, llm: wrapClient(binding.llm, options.work ?? 'chat') },
    compactionModel: { ...binding, llm: wrapClient(binding.llm, 'compaction') },
    finalSummaryModel: { ...binding, llm: wrapClient(binding.llm, 'final_summary') },
    subagentModel: { ...binding, llm: wrapClient(binding.llm, 'subagent') },
    tools: (options.tools ?? []).map(wrapTool),
    approvals: wrapGate(options.approvals),
  });

  const asked = new Set<string>();
  conversation.subscribe((event) => {
    events.push(event);
    switch (event.type) {
      case 'subagent_start': {
        const call = [...pendingCalls]
          .reverse()
          .find(([key, value]) => key.startsWith('lead\u0000') && value.name === 'task');
        if (call) toolStep('lead', call[0].split('\u0000')[1]!);
        openSubagents.push(event.subagentId);
        break;
      }
      case 'subagent_end':
        openSubagents.splice(openSubagents.lastIndexOf(event.subagentId), 1);
        break;
      case 'tool_call':
        pendingCalls.set(`${event.agentId}\u0000${event.toolCallId}`, { name: event.toolName, input: event.input });
        break;
      case 'tool_approval_request':
        toolStep(event.agentId, event.toolCallId, event.toolName);
        asked.add(`${event.agentId}\u0000${event.toolCallId}`);
        break;
      case 'tool_approval_result': {
        const step = toolStep(event.agentId, event.toolCallId);
        step.decision = {
          approved: event.approved,
          source: event.source,
          ...(event.reason ? { reason: event.reason } : {}),
          asked: asked.has(`${event.agentId}\u0000${event.toolCallId}`),
        };
        break;
      }
      case 'tool_result': {
        const step = toolStep(event.agentId, event.toolCallId, event.toolName);
        step.result = store.put({ output: event.output, isError: event.isError });
        step.durationMs = now() - step.startedAt;
        pendingCalls.delete(`${event.agentId}\u0000${event.toolCallId}`);
        break;
      }
      case 'interrupted':
        steps.push({
          kind: 'interrupt',
          step: next++,
          during: lastWork || undefined,
          redirect: Boolean(event.feedback),
        });
        break;
      case 'user_message':
        if (event.agentId === 'lead')
          steps.push({
            kind: 'prompt',
            step: next++,
            text: store.put(event.text),
            ...(interruptedBefore?.type === 'interrupted' && interruptedBefore.feedback ? { redirect: true } : {}),
          });
        break;
    }
    if (event.type !== 'text_delta') interruptedBefore = event;
  });

  return {
    store,
    conversation,
    events,
    async finish() {
      const tools = (firstRequest?.tools ?? []).map((tool) => ({ name: tool.name, schema: store.put(tool) }));
      const manifest: RunManifest = {
        format: RECORDING_FORMAT,
        product: 'test',
        conversationId: options.id,
        startedAt: 1_000,
        place: { kind: 'workspace', root: '/work' },
        models: [{ work: 'chat', provider: binding.llm.provider, model: binding.model }],
        system: store.put(options.system),
        tools,
        policy: { hash: 'default', sources: [] },
        limits: typeof options.limits === 'object' ? { ...options.limits } : {},
      };
      await store.saveManifest(manifest);
      for (const step of [...steps].sort((a, b) => a.step - b.step)) await store.putStep(options.id, step);
      return (await store.getRecording(options.id))!;
    },
  };
}
