/**
 * What the session does with a prompt, given what is running (SPEC 1.1, 2.6): idle, it starts a
 * run; while the agent works (or a run is being set up) it queues the prompt; after Stop it
 * waits for the stopped run to end and then starts it; "Send now" interrupts and redirects.
 * When a run ends normally the first queued message goes out; a stop or a failure holds the
 * queue (see PromptQueue). Surfaces change the queue through here, so every change that can
 * free the next message (an edit finished, a resume) also sends it.
 */
import type { AgentEvent } from '../events/events';
import type { MentionResolver, ResolvedContext } from './mentions';
import type { ImagePart } from '../llm/llm-client';
import type { SetupProblem } from './model-routing';
import type { WorkKind } from '../policy/model-routes';
import {
  PromptQueue,
  type QueueEntry,
  type QueueRefusal,
  type QueuedPrompt,
  type QueueSnapshot,
  type QueueState,
  type RestoredPrompt,
} from './prompt-queue';

/** Why a prompt was not started or queued: no model set up, or the queue refused it. */
export type SubmitProblem = SetupProblem | QueueRefusal;

/** A prompt on its way: its text, how to resolve its @mentions, the kind of work. */
export interface PromptRequest {
  text: string;
  resolve?: MentionResolver;
  work: WorkKind;
  /** Sent again from a reopened conversation: the context it was first sent with. */
  context?: ResolvedContext;
  /** Sent by Retry: the `error` of the run it retries. */
  retryOf?: number;
  /** Taken from the queue: if it cannot start, it goes back there (not to wait for a fixed setup too). */
  queued?: boolean;
  /** Images the user attached (issue 36), prepared: they go with the prompt, queued or not. */
  images?: readonly ImagePart[];
}

/**
 * How a run ended, after the session decided what comes next: a normal end sends the first
 * queued message (`next`, whose run is starting); a stop or a failure holds the queue.
 */
export interface RunEnd {
  outcome: 'done' | 'failed' | 'stopped';
  next?: QueuedPrompt;
}

export interface SessionQueueDeps {
  /**
   * Sets up and starts a run of the prompt; resolves once it runs (`runStarted` was called) or
   * with a problem (`stopped` once `signal` aborts: Stop during the setup ends its waits at once).
   */
  start(request: PromptRequest, signal: AbortSignal): Promise<SetupProblem | undefined>;
  /** Whether the conversation's agent is running (a run, or a compaction). */
  isRunning(): boolean;
  /** Redirects the running agent with `text` (interrupt with feedback). */
  redirect(text: string): void;
  /** Stops the conversation's run now. */
  stopRun(): void;
}

export class SessionQueue {
  private readonly queue = new PromptQueue();
  /** A run being set up (mentions, settings, the conversation): prompts sent meanwhile queue. */
  private starting: Promise<unknown> | undefined;
  /** Aborted by Stop while a run is being set up: the setup's waits end at once. */
  private setup: AbortController | undefined;
  /** Stop was pressed and the run has not ended yet. */
  private stopping = false;
  /** The current run, until what follows its end has been decided. */
  private current: { ended: Promise<void> } | undefined;
  /** How the current run ended, from its last lead event. */
  private lastEnd: { outcome: RunEnd['outcome']; reason?: string } | undefined;
  private readonly runEndListeners = new Set<(end: RunEnd) => void>();

  constructor(private readonly deps: SessionQueueDeps) {}

  /** Whether a run is going or being set up: a prompt sent now is queued. */
  get isBusy(): boolean {
    return this.deps.isRunning() || this.starting !== undefined;
  }

  get state(): QueueState {
    return this.queue.state;
  }

  get length(): number {
    return this.queue.length;
  }

  onChange(listener: (state: QueueState) => void): () => void {
    return this.queue.onChange(listener);
  }

  onRunEnd(listener: (end: RunEnd) => void): () => void {
    this.runEndListeners.add(listener);
    return () => this.runEndListeners.delete(listener);
  }

  /** A prompt: started when idle, queued while busy, started after a stopped run has ended. */
  async send(request: PromptRequest): Promise<SubmitProblem | undefined> {
    await this.afterStopping();
    if (this.isBusy) {
      const queued = this.queue.add(request.text, request.resolve, request.images);
      return 'reason' in queued ? queued : undefined;
    }
    return this.start(request);
  }

  /**
   * Queues `text` if the agent works and is not being stopped — at once, with no wait; undefined
   * when it would not be queued (the caller then treats it as the next prompt).
   */
  enqueue(text: string, resolve?: MentionResolver): QueuedPrompt | QueueRefusal | undefined {
    if (!this.isBusy || this.stopping) return undefined;
    return this.queue.add(text, resolve);
  }

  /**
   * "Send now": redirects the running agent with `text`; without a run, a prompt. With images it
   * cannot redirect (a redirect carries words only): the run is stopped and the prompt goes out
   * with its images once it has ended.
   */
  async sendNow(
    text: string,
    resolve?: MentionResolver,
    images?: readonly ImagePart[],
  ): Promise<SubmitProblem | undefined> {
    if (images?.length) {
      if (this.isBusy) this.stop();
      return this.send({ text, resolve, work: 'chat', images });
    }
    await this.afterStopping();
    // A run being set up is redirected once it runs.
    await this.starting?.catch(() => undefined);
    // Only a run is redirected; a compaction is not cut short: the message goes right after it.
    if (this.deps.isRunning() && this.current) {
      this.deps.redirect(text);
      return undefined;
    }
    return this.send({ text, resolve, work: 'chat' });
  }

  /** Stop was pressed: the run ends, and the queue waits for the user. */
  stop(): void {
    if (this.isBusy) this.stopping = true;
    this.setup?.abort();
    this.deps.stopRun();
  }

  /** Called by `start` once the run is under way; `run` settles when it has ended. Returns what to track. */
  runStarted(run: Promise<void>): Promise<void> {
    const current = { ended: Promise.resolve() };
    current.ended = run.then(
      () => this.ended(current),
      () => this.ended(current),
    );
    this.current = current;
    // Stop was pressed while the run was being set up: it stops as soon as it has started.
    if (this.stopping) this.deps.stopRun();
    return current.ended;
  }

  /** Every event of the conversation: the lead's last one says how a run ended. */
  observe(event: AgentEvent): void {
    if (event.agentId !== 'lead') return;
    if (event.type === 'done') this.lastEnd = { outcome: 'done' };
    else if (event.type === 'error') this.lastEnd = { outcome: 'failed', reason: event.message };
    else if (event.type === 'interrupted' && !event.feedback) this.lastEnd = { outcome: 'stopped' };
  }

  /** The agent became free by other means (a compaction ended): queued messages may go. */
  freed(): void {
    this.sendNext();
  }

  /** A new chat, or another conversation: the queued follow-ups go with the old one. */
  reset(): void {
    this.queue.clear();
    this.stopping = false;
    this.current = undefined;
    this.lastEnd = undefined;
  }

  /** Replaces a queued message's text ('gone': it was sent first; the caller gives the text back). */
  edit(id: string, text: string): 'edited' | 'gone' | QueueRefusal {
    const result = this.queue.edit(id, text);
    this.sendNext();
    return result;
  }

  remove(id: string): boolean {
    return this.queue.remove(id);
  }

  /** A surface is editing a queued message (undefined: no longer): it is not sent half-edited. */
  setEditing(id: string | undefined): void {
    const before = this.queue.state.editing;
    this.queue.setEditing(id);
    // An edit that ended may free the first message.
    if (before !== undefined && this.queue.state.editing === undefined) this.sendNext();
  }

  /** "Send now" on a queued message: taken out and sent as sendNow sends. 'gone': already sent or removed. */
  async sendQueuedNow(id: string): Promise<SubmitProblem | 'gone' | undefined> {
    const entry = this.queue.take(id);
    if (!entry) return 'gone';
    return this.sendNow(entry.text, entry.resolve, entry.attached);
  }

  /** The user lets a held queue go on. False when nothing is queued. */
  resume(): boolean {
    if (this.queue.length === 0) return false;
    this.queue.resume();
    this.sendNext();
    return true;
  }

  /** Messages kept across a window reload (with their images), back in the queue, held until the user resumes them. */
  restore(kept: ReadonlyArray<string | RestoredPrompt>, resolve?: MentionResolver): void {
    this.queue.restore(kept, resolve);
  }

  /** The images the waiting messages carry, each once. */
  get attachedImages(): ImagePart[] {
    return this.queue.attachedImages;
  }

  /** Takes the waiting messages out silently (the conversation on screen is reopened); see bringBack. */
  setAside(): QueueSnapshot {
    return this.queue.setAside();
  }

  bringBack(snapshot: QueueSnapshot): void {
    this.queue.bringBack(snapshot);
  }

  /** After a Stop, until the stopped run has ended: a prompt sent then goes out once it has. */
  private async afterStopping(): Promise<void> {
    for (;;) {
      const pending = this.stopping ? (this.current?.ended ?? this.starting) : undefined;
      if (!pending) return;
      await pending.catch(() => undefined);
    }
  }

  private async start(request: PromptRequest): Promise<SetupProblem | undefined> {
    this.stopping = false;
    this.lastEnd = undefined;
    const setup = new AbortController();
    this.setup = setup;
    const starting = this.deps.start(request, setup.signal);
    this.starting = starting;
    try {
      const problem = await starting;
      if (problem?.reason === 'stopped') {
        // Stopped before it ran: nothing will end, so nothing is being stopped any more; what
        // was queued meanwhile waits for the user, as after any Stop.
        this.stopping = false;
        if (this.queue.length > 0) this.queue.hold('stopped');
      }
      return problem;
    } finally {
      if (this.starting === starting) this.starting = undefined;
      if (this.setup === setup) this.setup = undefined;
    }
  }

  /** A run has ended: the queue goes on after a normal end, and waits otherwise. */
  private ended(run: { ended: Promise<void> }): void {
    // A new chat (or another conversation) took over: the old run's end decides nothing.
    if (run !== this.current) return;
    this.current = undefined;
    const stopped = this.stopping;
    this.stopping = false;
    const end = this.lastEnd;
    this.lastEnd = undefined;
    if (!stopped && end?.outcome === 'done') {
      this.sendNext('done');
      return;
    }
    const outcome = stopped ? 'stopped' : (end?.outcome ?? 'failed');
    this.queue.hold(outcome === 'stopped' ? 'stopped' : 'failed', outcome === 'failed' ? end?.reason : undefined);
    this.notify({ outcome });
  }

  /** Sends the first queued message when the agent is free and the queue neither held nor being edited. */
  private sendNext(after?: RunEnd['outcome']): void {
    const next = this.isBusy ? undefined : this.queue.takeNext();
    // Started before anyone hears of it: a listener sending or editing meanwhile finds the session busy.
    if (next) void this.sendQueued(next);
    if (after) this.notify({ outcome: after, ...(next ? { next: { id: next.id, text: next.text } } : {}) });
  }

  private async sendQueued(entry: QueueEntry): Promise<void> {
    let problem: SetupProblem | undefined;
    try {
      problem = await this.start({
        text: entry.text,
        resolve: entry.resolve,
        work: 'chat',
        queued: true,
        ...(entry.attached ? { images: entry.attached } : {}),
      });
    } catch (error) {
      problem = { reason: 'unknown_provider', message: error instanceof Error ? error.message : String(error) };
    }
    if (problem === undefined) return;
    // It could not start (a key removed, the policy file unreadable, a Stop during its setup):
    // back in front, held, said why.
    this.queue.putBack(entry);
    const stopped = problem.reason === 'stopped';
    this.queue.hold(stopped ? 'stopped' : 'failed', stopped ? undefined : problem.message);
    this.notify({ outcome: stopped ? 'stopped' : 'failed' });
  }

  private notify(end: RunEnd): void {
    for (const listener of this.runEndListeners) {
      try {
        listener(end);
      } catch {
        // A faulty surface must not stop the queue.
      }
    }
  }
}
