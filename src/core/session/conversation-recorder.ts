/**
 * Writes a conversation into the store as it happens: the conversation itself, each prompt,
 * the streamed answer (saved at most once a second while it streams, and in full when the run
 * ends — so a crash loses at most the last second of text, never a finished turn), tool calls
 * and other events, usage per model call, and the audit trail.
 */
import type { AuditRecord, ConversationStore, StoredConversation, TeamStamp } from '../ports';
import type { AgentEvent } from '../events/events';
import { holdsAny, redactValue, type KnownSecrets } from '../llm/redact';

export interface RecorderOptions {
  store: ConversationStore;
  conversationId: string;
  now: () => number;
  /** Settings worth keeping with the conversation (never secrets: the store redacts anyway). */
  settings: Record<string, unknown>;
  /**
   * The API keys in use: removed from everything written, wherever they appear (the store
   * itself only recognises key-shaped strings; a local server's token can look like anything).
   */
  secrets?: () => KnownSecrets;
  /** Store failures, for the host to show (once). */
  onError: (error: unknown) => void;
  /** Streaming text is saved at most this often. */
  flushIntervalMs?: number;
  /** With a team configured: who records, so usage and audit records also go to the team database. */
  team?: () => TeamStamp | undefined;
  /** A reopened conversation: it is already stored; new messages are numbered from `nextSeq`. */
  resume?: { conversation: StoredConversation; nextSeq: number };
}

const TITLE_LENGTH = 60;

export class ConversationRecorder {
  private seq = 0;
  private conversation: StoredConversation | undefined;
  private answer: { id: string; seq: number; text: string; savedLength: number } | undefined;
  private lastFlush = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Keyed by agent and tool-call id (a sub-agent's ids may repeat the lead's). */
  private pendingApproval = new Map<string, { approved: boolean; source: string; rule?: string; reviewer?: unknown }>();
  private pendingInput = new Map<string, unknown>();
  /** The newest team approval state of each call waiting for a named approver. */
  private pendingTeam = new Map<string, Extract<AgentEvent, { type: 'team_approval' }>>();
  /** Calls read from the model's text (a local server left them there): said in their audit record. */
  private pendingFromText = new Map<string, unknown>();
  /** Writes are chained so they reach the store in event order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: RecorderOptions) {
    if (options.resume) {
      this.conversation = options.resume.conversation;
      this.seq = options.resume.nextSeq;
    }
  }

  /** Feeds one event; returns at once (writing happens in order, in the background). */
  record(event: AgentEvent): void {
    switch (event.type) {
      case 'user_message':
        this.finishAnswer();
        if (!this.conversation) this.saveConversation(event.text, event.time);
        this.put(
          'user',
          {
            text: event.text,
            // References only: the bytes were put in the ImageStore before this event (ImageKeeper).
            ...(event.images?.length ? { images: event.images } : {}),
            ...(event.attachments ? { attachments: event.attachments } : {}),
            ...(event.context ? { context: event.context } : {}),
            ...(event.hookContext ? { hookContext: event.hookContext } : {}),
            ...(event.retryOf !== undefined ? { retryOf: event.retryOf } : {}),
          },
          event.time,
        );
        break;
      case 'text_delta':
        this.answer ??= { id: this.nextId(), seq: this.seq - 1, text: '', savedLength: 0 };
        this.answer.text += event.text;
        this.scheduleFlush();
        break;
      case 'tool_call':
        if (event.agentId === 'lead') this.finishAnswer();
        this.pendingInput.set(callKey(event), event.input);
        if (event.fromText) this.pendingFromText.set(callKey(event), event.fromText);
        this.put('event', event, event.time);
        break;
      case 'tool_approval_result': {
        const decision = {
          approved: event.approved,
          source: event.source,
          ...(event.reason ? { rule: event.reason } : {}),
          // What the reviewer program answered, whoever decided in the end (issue 37).
          ...(event.reviewer ? { reviewer: event.reviewer } : {}),
        };
        this.pendingApproval.set(callKey(event), decision);
        // Kept as an event too: a reopened conversation shows who denied or refused each call.
        this.put('event', event, event.time);
        // A call the policy refused is a policy violation (SPEC 4.5), recorded on its own too.
        if (event.source === 'policy' && !event.approved)
          this.audit(event, 'policy', {
            agentId: event.agentId,
            toolCallId: event.toolCallId,
            input: this.pendingInput.get(callKey(event)),
            violation: event.reason ?? 'denied by policy',
          });
        break;
      }
      case 'team_approval':
        // Who was asked, who decided, when and why: kept with the call's own audit record.
        this.put('event', event, event.time);
        this.pendingTeam.set(callKey(event), event);
        break;
      case 'tool_result': {
        const key = callKey(event);
        this.put('event', event, event.time);
        this.audit(event, 'tool_call', {
          agentId: event.agentId,
          toolCallId: event.toolCallId,
          tool: event.toolName,
          input: this.pendingInput.get(key),
          ...(this.pendingFromText.has(key) ? { fromText: this.pendingFromText.get(key) } : {}),
          // No decision event: a read-only call, which runs without asking.
          approval: this.pendingApproval.get(key) ?? { approved: true, source: 'read_only' },
          ...(this.pendingTeam.has(key) ? { teamApproval: teamApprovalAudit(this.pendingTeam.get(key)!) } : {}),
          isError: event.isError,
          ...(event.isError ? { error: event.output.slice(0, 500) } : {}),
          resultChars: event.output.length,
          durationMs: event.durationMs,
        });
        this.pendingInput.delete(key);
        this.pendingFromText.delete(key);
        this.pendingApproval.delete(key);
        this.pendingTeam.delete(key);
        break;
      }
      case 'usage': {
        // Kept as an event too: a reopened conversation shows its cost so far.
        this.put('event', event, event.time);
        if (event.scope !== 'call') break;
        const team = this.options.team?.();
        this.enqueue(() =>
          this.options.store.recordUsage({
            id: `${this.options.conversationId}-usage-${event.seq}`,
            conversationId: this.options.conversationId,
            provider:
              event.provider ??
              (typeof this.options.settings.provider === 'string' ? this.options.settings.provider : ''),
            model: event.model,
            ...event.usage,
            costUsd: event.costUsd,
            time: event.time,
            ...(event.reservationId ? { reservationId: event.reservationId } : {}),
            ...(team ? { team } : {}),
          }),
        );
        this.audit(event, 'model_call', {
          agentId: event.agentId,
          ...(event.provider ? { provider: event.provider } : {}),
          model: event.model,
          ...(event.work ? { work: event.work } : {}),
          ...event.usage,
          costUsd: event.costUsd,
          reported: event.reported,
          ...(event.durationMs !== undefined ? { latencyMs: event.durationMs } : {}),
        });
        break;
      }
      case 'budget':
        this.audit(event, 'budget', { ...event });
        break;
      case 'done':
      case 'error':
      case 'interrupted':
        this.finishAnswer();
        this.put('event', event, event.time);
        this.touch(event.time);
        break;
      case 'compact':
      case 'subagent_start':
      case 'subagent_end':
      case 'task_update':
      case 'background_result':
      case 'files_changed':
      case 'plan_mode':
      case 'turn_reverted':
      case 'review_hunks':
      case 'review_decision':
      case 'review_note':
      case 'teammate_status':
      case 'cache_break':
      case 'cost_warning':
        // Cost warnings too: a reopened conversation still says where its money went.
        this.put('event', event, event.time);
        break;
      default:
        // Traces (llm_request/llm_response) and approval requests (their decisions are) are not kept.
        break;
    }
  }

  /** Resolves when everything recorded so far is written. */
  async flush(): Promise<void> {
    this.finishAnswer();
    await this.queue;
  }

  private saveConversation(prompt: string, time: number): void {
    const title = prompt.replace(/\s+/g, ' ').trim();
    const conversation: StoredConversation = {
      id: this.options.conversationId,
      title: title.length > TITLE_LENGTH ? `${title.slice(0, TITLE_LENGTH - 1)}…` : title,
      createdAt: time,
      updatedAt: time,
      settings: this.options.settings,
    };
    this.enqueue(() => this.options.store.saveConversation(conversation));
    this.conversation = conversation;
  }

  private touch(time: number): void {
    if (!this.conversation) return;
    const updated = { ...this.conversation, updatedAt: time };
    this.conversation = updated;
    this.enqueue(() => this.options.store.saveConversation(updated));
  }

  private scheduleFlush(): void {
    const interval = this.options.flushIntervalMs ?? 1_000;
    const due = this.lastFlush + interval - this.options.now();
    if (due <= 0) return this.saveAnswer();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.saveAnswer();
    }, due);
  }

  private saveAnswer(): void {
    const answer = this.answer;
    if (!answer || answer.savedLength === answer.text.length) return;
    this.lastFlush = this.options.now();
    answer.savedLength = answer.text.length;
    const text = answer.text;
    this.enqueue(() =>
      this.options.store.putMessage({
        id: answer.id,
        conversationId: this.options.conversationId,
        seq: answer.seq,
        role: 'assistant',
        content: this.redact({ text }),
        createdAt: this.lastFlush,
      }),
    );
  }

  private finishAnswer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.saveAnswer();
    this.answer = undefined;
  }

  private put(role: 'user' | 'assistant' | 'event', content: unknown, time: number): void {
    const message = {
      id: this.nextId(),
      conversationId: this.options.conversationId,
      seq: this.seq - 1,
      role,
      content: this.redact(content),
      createdAt: time,
    };
    this.enqueue(() => this.options.store.putMessage(message));
  }

  /** One audit record per event: named after the event's seq, unique in the conversation even after it is reopened. */
  private audit(event: AgentEvent, kind: AuditRecord['kind'], data: Record<string, unknown>): void {
    const team = this.options.team?.();
    const record = {
      id: `${this.options.conversationId}-audit-${event.seq}`,
      conversationId: this.options.conversationId,
      time: event.time,
      kind,
      data: this.redact(data),
      ...(team ? { team } : {}),
    };
    this.enqueue(() => this.options.store.recordAudit(record));
  }

  private redact<T>(value: T): T {
    const known = this.options.secrets?.() ?? [];
    return holdsAny(known) ? redactValue(value, known) : value;
  }

  private nextId(): string {
    return `${this.options.conversationId}-${this.seq++}`;
  }

  private enqueue(write: () => Promise<void>): void {
    this.queue = this.queue.then(write).catch((error: unknown) => this.options.onError(error));
  }
}

/** A team approval as the audit trail keeps it: the request, the decision, who, when, why. */
function teamApprovalAudit(event: Extract<AgentEvent, { type: 'team_approval' }>): Record<string, unknown> {
  return {
    requestId: event.requestId,
    approvers: event.approvers,
    state: event.state,
    ...(event.by ? { decidedBy: event.by } : {}),
    decidedAt: event.time,
    ...(event.reason ? { reason: event.reason } : {}),
  };
}

function callKey(event: { agentId: string; toolCallId: string }): string {
  return `${event.agentId}\u0000${event.toolCallId}`;
}
