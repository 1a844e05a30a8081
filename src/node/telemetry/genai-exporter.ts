/**
 * Turns the agent's event stream into OpenTelemetry spans and metrics following the GenAI
 * semantic conventions, sent over OTLP/HTTP (JSON) to a collector. Loaded only when an
 * endpoint is configured (see genai-telemetry.ts): the SDK is not small.
 *
 * Spans are made after the fact from events, with the times the events carry:
 * - `invoke_agent OpenAgent` (INTERNAL) from a prompt's user_message to its done / error /
 *   interrupted: the parent of that run's model and tool calls;
 * - `chat {model}` (CLIENT) per model call, from the `usage` event every call ends with
 *   (finished or failed), with error.type when it failed;
 * - `execute_tool {tool}` (INTERNAL) per tool result, with the call's arguments redacted as
 *   the audit trail redacts them;
 * - `invoke_agent OpenAgent {kind}` per sub-agent, the parent of the sub-agent's tool calls.
 * Metrics: gen_ai.client.token.usage and gen_ai.client.operation.duration per model call.
 *
 * The providers are private to this exporter, never registered as the global ones: the
 * extension host is shared with other extensions, which may run OpenTelemetry of their own.
 * For the same reason every span is started in an explicit context, never the active one.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Histogram,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { AgentEvent } from '../../core/events/events';
import { redactText, type KnownSecrets } from '../../core/llm/redact';
import {
  AGENT_NAME,
  DURATION_BUCKETS,
  ERROR_TYPE,
  GEN_AI,
  genAiProviderName,
  OPENAGENT,
  OPERATION,
  SERVER_ADDRESS,
  SERVER_PORT,
  serverOf,
  TOKEN_BUCKETS,
  toolArgumentsAttribute,
} from './genai-conventions';
import type { GenAiTelemetryOptions } from './genai-telemetry';

type UsageEvent = Extract<AgentEvent, { type: 'usage' }>;
type ToolResultEvent = Extract<AgentEvent, { type: 'tool_result' }>;

/** A tool call waiting for its result: what the span needs from the earlier events. */
interface PendingToolCall {
  input: unknown;
  approved?: boolean;
  approvalSource?: string;
  /** A named approver's decision (team approvals). */
  team?: { requestId: string; approvers: string[]; by?: string; state: string };
  reviewer?: { decision: string; reason: string };
}

/** Tool calls that never get a result (a stopped run) are forgotten beyond this many. */
const MAX_PENDING_TOOL_CALLS = 1_000;

export class GenAiExporter {
  private readonly tracerProvider: BasicTracerProvider;
  private readonly meterProvider: MeterProvider;
  private readonly tracer: Tracer;
  private readonly tokenUsage: Histogram;
  private readonly operationDuration: Histogram;
  /** Open invoke_agent spans: a conversation's run, and its sub-agents', by conversation and agent. */
  private readonly agents = new Map<string, Span>();
  /** The agent id whose user_message opened each conversation's run. */
  private readonly runAgent = new Map<string, string>();
  private readonly toolCalls = new Map<string, PendingToolCall>();
  private readonly lastSeq = new Map<string, number>();

  constructor(private readonly options: GenAiTelemetryOptions & { startedAt: number }) {
    const base = options.endpoint.replace(/\/+$/, '');
    const resource = resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName,
      ...(options.serviceVersion ? { [ATTR_SERVICE_VERSION]: options.serviceVersion } : {}),
    });
    const common = { headers: { ...options.headers }, timeoutMillis: options.timeoutMs ?? 10_000 };
    const spanExporter = reportingFailures(new OTLPTraceExporter({ ...common, url: `${base}/v1/traces` }), (error) =>
      options.onExportError?.(error),
    );
    const metricExporter = reportingFailures(
      new OTLPMetricExporter({ ...common, url: `${base}/v1/metrics` }),
      (error) => options.onExportError?.(error),
    );
    this.tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(spanExporter, { scheduledDelayMillis: options.spanDelayMs ?? 5_000 })],
    });
    this.meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: metricExporter,
          exportIntervalMillis: options.metricIntervalMs ?? 60_000,
          exportTimeoutMillis: common.timeoutMillis,
        }),
      ],
    });
    this.tracer = this.tracerProvider.getTracer('openagent', options.serviceVersion);
    const meter = this.meterProvider.getMeter('openagent', options.serviceVersion);
    this.tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Number of input and output tokens used.',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.operationDuration = meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'GenAI operation duration.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  record(event: AgentEvent): void {
    if (!this.isNew(event)) return;
    switch (event.type) {
      case 'user_message':
        this.startRun(event);
        break;
      case 'usage':
        if (event.scope === 'call') this.modelCall(event);
        else this.runUsage(event);
        break;
      case 'tool_call':
        this.rememberToolCall(`${event.conversationId}\n${event.toolCallId}`, { input: event.input });
        break;
      case 'tool_approval_result': {
        const pending = this.toolCalls.get(`${event.conversationId}\n${event.toolCallId}`);
        if (pending)
          Object.assign(pending, {
            approved: event.approved,
            approvalSource: event.source,
            ...(event.reviewer ? { reviewer: event.reviewer } : {}),
          });
        break;
      }
      case 'team_approval': {
        const pending = this.toolCalls.get(`${event.conversationId}\n${event.toolCallId}`);
        if (pending)
          pending.team = {
            requestId: event.requestId,
            approvers: event.approvers,
            state: event.state,
            ...(event.by ? { by: event.by } : {}),
          };
        break;
      }
      case 'tool_result':
        this.toolExecution(event);
        break;
      case 'subagent_start':
        this.startAgent(event.conversationId, event.subagentId, event.time, `${AGENT_NAME} ${event.kind}`);
        break;
      case 'subagent_end':
        this.agents.get(agentKey(event.conversationId, event.subagentId))?.end(new Date(event.time));
        this.agents.delete(agentKey(event.conversationId, event.subagentId));
        break;
      case 'done':
        this.endRun(event, { outcome: 'done', finishReason: event.stopReason });
        break;
      case 'interrupted':
        this.endRun(event, { outcome: 'interrupted' });
        break;
      case 'error':
        this.endRun(event, { outcome: 'error', errorType: event.kind });
        break;
      default:
        break;
    }
  }

  /** Sends what has been recorded so far (spans of runs still going are sent when they end). */
  async flush(): Promise<void> {
    await Promise.all([this.tracerProvider.forceFlush(), this.meterProvider.forceFlush()]);
  }

  /** Ends the runs still open (at the time of their last event), sends everything, stops. */
  async shutdown(): Promise<void> {
    for (const span of this.agents.values()) {
      span.setAttribute(OPENAGENT.turnOutcome, 'unfinished');
      span.end();
    }
    this.agents.clear();
    await Promise.allSettled([this.tracerProvider.shutdown(), this.meterProvider.shutdown()]);
  }

  /**
   * Live events only. A reopened conversation's history is replayed to every subscriber with
   * its old times and sequence numbers: those calls were exported when they happened (or
   * before this exporter existed), and must not be sent twice.
   */
  private isNew(event: AgentEvent): boolean {
    if (event.time < this.options.startedAt) return false;
    const last = this.lastSeq.get(event.conversationId);
    if (last !== undefined && event.seq <= last) return false;
    this.lastSeq.set(event.conversationId, event.seq);
    return true;
  }

  private startRun(event: Extract<AgentEvent, { type: 'user_message' }>): void {
    // A prompt typed while the agent works continues the run: its span stays open.
    if (this.agents.has(agentKey(event.conversationId, event.agentId))) return;
    this.runAgent.set(event.conversationId, event.agentId);
    this.startAgent(event.conversationId, event.agentId, event.time, AGENT_NAME);
  }

  private startAgent(conversationId: string, agentId: string, time: number, name: string): void {
    const parent = this.runSpan(conversationId);
    const span = this.tracer.startSpan(
      `${OPERATION.invokeAgent} ${name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: new Date(time),
        attributes: this.clean({
          [GEN_AI.operationName]: OPERATION.invokeAgent,
          [GEN_AI.agentName]: name,
          [GEN_AI.agentId]: agentId,
          [GEN_AI.conversationId]: conversationId,
        }),
      },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );
    this.agents.set(agentKey(conversationId, agentId), span);
  }

  /** The run's totals: what the whole prompt used, on its invoke_agent span. */
  private runUsage(event: UsageEvent): void {
    const span = this.runSpan(event.conversationId);
    if (!span) return;
    span.setAttributes(
      this.clean({
        [GEN_AI.requestModel]: event.model,
        [GEN_AI.inputTokens]: inputTokens(event),
        [GEN_AI.outputTokens]: event.usage.outputTokens,
        [OPENAGENT.costUsd]: event.costUsd,
      }),
    );
  }

  private endRun(event: AgentEvent, how: { outcome: string; finishReason?: string; errorType?: string }): void {
    const agentId = this.runAgent.get(event.conversationId);
    if (agentId !== event.agentId) return;
    const key = agentKey(event.conversationId, agentId);
    const span = this.agents.get(key);
    if (!span) return;
    span.setAttribute(OPENAGENT.turnOutcome, how.outcome);
    if (how.finishReason) span.setAttribute(GEN_AI.responseFinishReasons, [how.finishReason]);
    if (how.errorType) {
      span.setAttribute(ERROR_TYPE, how.errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(new Date(event.time));
    this.agents.delete(key);
    this.runAgent.delete(event.conversationId);
  }

  private modelCall(event: UsageEvent): void {
    const provider = genAiProviderName(event.provider);
    const server = serverOf(this.options.serverUrl?.(provider));
    // The event names the model requested; the server answered as that model (its own name for
    // it is not in the stream), so the response model is the same name.
    const common: Attributes = this.clean({
      [GEN_AI.operationName]: OPERATION.chat,
      [GEN_AI.providerName]: provider,
      [GEN_AI.system]: provider,
      [GEN_AI.requestModel]: event.model,
      [GEN_AI.responseModel]: event.model,
      ...(server ? { [SERVER_ADDRESS]: server.address, [SERVER_PORT]: server.port } : {}),
    });
    const failed = event.failure && event.failure !== 'interrupted' ? event.failure : undefined;
    const end = event.time;
    const start = end - (event.durationMs ?? 0);
    const parent = this.runSpan(event.conversationId);
    const span = this.tracer.startSpan(
      `${OPERATION.chat} ${event.model}`,
      {
        kind: SpanKind.CLIENT,
        startTime: new Date(start),
        attributes: {
          ...common,
          ...this.clean({
            [GEN_AI.conversationId]: event.conversationId,
            [GEN_AI.agentId]: event.agentId,
            [GEN_AI.inputTokens]: inputTokens(event),
            [GEN_AI.outputTokens]: event.usage.outputTokens,
            [GEN_AI.cacheReadInputTokens]: event.usage.cacheReadTokens,
            [GEN_AI.cacheCreationInputTokens]: event.usage.cacheWriteTokens,
            [OPENAGENT.usageReported]: event.reported,
            [OPENAGENT.costUsd]: event.costUsd,
            ...(event.work ? { [OPENAGENT.work]: event.work } : {}),
            ...(event.failure === 'interrupted' ? { [OPENAGENT.turnOutcome]: 'interrupted' } : {}),
          }),
        },
      },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );
    if (failed) {
      span.setAttribute(ERROR_TYPE, failed);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(new Date(end));

    this.operationDuration.record((event.durationMs ?? 0) / 1000, {
      ...common,
      ...(failed ? { [ERROR_TYPE]: failed } : {}),
    });
    // A request refused before any answer used nothing: no token counts to record.
    const used = inputTokens(event) + event.usage.outputTokens;
    if (event.failure && used === 0) return;
    this.tokenUsage.record(inputTokens(event), { ...common, [GEN_AI.tokenType]: 'input' });
    this.tokenUsage.record(event.usage.outputTokens, { ...common, [GEN_AI.tokenType]: 'output' });
  }

  private rememberToolCall(key: string, call: PendingToolCall): void {
    if (this.toolCalls.size >= MAX_PENDING_TOOL_CALLS) {
      const oldest = this.toolCalls.keys().next();
      if (!oldest.done) this.toolCalls.delete(oldest.value);
    }
    this.toolCalls.set(key, call);
  }

  private toolExecution(event: ToolResultEvent): void {
    const key = `${event.conversationId}\n${event.toolCallId}`;
    const call = this.toolCalls.get(key);
    this.toolCalls.delete(key);
    const parent = this.agents.get(agentKey(event.conversationId, event.agentId)) ?? this.runSpan(event.conversationId);
    const span = this.tracer.startSpan(
      `${OPERATION.executeTool} ${event.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: new Date(event.time - event.durationMs),
        attributes: this.clean({
          [GEN_AI.operationName]: OPERATION.executeTool,
          [GEN_AI.toolName]: event.toolName,
          [GEN_AI.toolCallId]: event.toolCallId,
          [GEN_AI.toolType]: 'function',
          [GEN_AI.conversationId]: event.conversationId,
          [GEN_AI.agentId]: event.agentId,
          ...(call ? { [GEN_AI.toolCallArguments]: toolArgumentsAttribute(call.input, this.secrets()) } : {}),
          ...(call?.approved !== undefined ? { [OPENAGENT.approval]: call.approved ? 'approved' : 'denied' } : {}),
          ...(call?.approvalSource ? { [OPENAGENT.approvalSource]: call.approvalSource } : {}),
          ...(call?.team
            ? {
                [OPENAGENT.approvalRequest]: call.team.requestId,
                [OPENAGENT.approvalApprovers]: call.team.approvers.join(', '),
                [OPENAGENT.approvalSource]: 'team_approver',
                ...(call.team.by ? { [OPENAGENT.approvalBy]: call.team.by } : {}),
              }
            : {}),
          ...(call?.reviewer
            ? {
                [OPENAGENT.reviewerDecision]: call.reviewer.decision,
                [OPENAGENT.reviewerReason]: redactText(call.reviewer.reason, this.secrets()),
              }
            : {}),
        }),
      },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );
    if (event.isError) {
      span.setAttribute(ERROR_TYPE, call?.approved === false ? 'denied' : 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(new Date(event.time));
  }

  private runSpan(conversationId: string): Span | undefined {
    const agentId = this.runAgent.get(conversationId);
    return agentId === undefined ? undefined : this.agents.get(agentKey(conversationId, agentId));
  }

  private secrets(): KnownSecrets {
    try {
      return this.options.secrets();
    } catch {
      return [];
    }
  }

  /**
   * Every text attribute through the redaction once more, whatever it holds: a model or tool
   * name is no place for a key, but nothing that leaves the machine is taken on trust.
   */
  private clean(attributes: Attributes): Attributes {
    const secrets = this.secrets();
    const copy: Attributes = {};
    for (const [name, value] of Object.entries(attributes)) {
      copy[name] = typeof value === 'string' ? redactText(value, secrets) : value;
    }
    return copy;
  }
}

function agentKey(conversationId: string, agentId: string): string {
  return `${conversationId}\n${agentId}`;
}

/** The conventions count every input token, cached ones included; OpenAgent keeps them apart. */
function inputTokens(event: UsageEvent): number {
  return event.usage.inputTokens + event.usage.cacheReadTokens + event.usage.cacheWriteTokens;
}

interface ExportResult {
  code: number;
  error?: Error;
}

/**
 * The exporters report a failed export only to OpenTelemetry's diagnostics, which nobody reads
 * in an editor or a terminal: the host is told instead (it says so once).
 */
function reportingFailures<Items, T extends { export(items: Items, done: (result: ExportResult) => void): void }>(
  exporter: T,
  onFailure: (error: unknown) => void,
): T {
  const original = exporter.export.bind(exporter);
  exporter.export = (items: Items, done: (result: ExportResult) => void) =>
    original(items, (result) => {
      // 0 is ExportResultCode.SUCCESS.
      if (result.code !== 0) onFailure(result.error ?? new Error('The OTLP export failed.'));
      done(result);
    });
  return exporter;
}
