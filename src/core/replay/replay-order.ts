/**
 * The order a team replay keeps between agents. A team's agents run concurrently, and what one
 * sees depends on what the others did before: the lead's inbox, drained just before its model
 * call, holds the messages its teammates had sent by then. The recording times every model and
 * tool step on the run's one clock (`startedAt`, `durationMs`); the replay holds a step back
 * until what came before it in the recording has come before it now:
 *
 * - any step starts once every step of another agent that ended before it started has ended;
 * - a step that writes to an inbox (`writers`: send_message, broadcast…) writes near its end, so
 *   it also waits until every other agent's model call that started before it ended has started
 *   (that agent's inbox was drained without the message), and until every other writer that
 *   ended before it has ended (the messages keep their order in the inbox).
 *
 * Steps that overlapped otherwise stay free to interleave: the replay compares each agent's own
 * sequence, never the order across agents. Every wait points at something the recording saw
 * strictly earlier (an end before a start, a start or an end before an end), so the recorded run
 * is a schedule meeting them all and a faithful recording cannot deadlock. A damaged or
 * reordered one can; `blocked` tells the team's watchdog what each blocked agent waits for.
 */
import type { ModelStep, ToolStep } from './recording';

type TimedStep = ModelStep | ToolStep;

/** Something a step waits for: another step to have started, or to have ended. */
interface Need {
  step: TimedStep;
  until: 'started' | 'ended';
}

interface Waiter {
  agentId: string;
  step: TimedStep;
  needs: Need[];
  resolve: () => void;
}

export class ReplayOrder {
  private readonly timed: TimedStep[];
  private readonly started = new Set<number>();
  private readonly finished = new Set<number>();
  private readonly waiters = new Set<Waiter>();
  private released = false;

  constructor(
    steps: readonly unknown[],
    private readonly writers: ReadonlySet<string> = new Set(),
  ) {
    this.timed = (steps as TimedStep[]).filter(
      (step) =>
        (step.kind === 'model' || step.kind === 'tool') &&
        Number.isFinite(step.startedAt) &&
        Number.isFinite(step.durationMs),
    );
  }

  /** What `step` waits for (see the top of the file). */
  private needs(step: TimedStep): Need[] {
    const writer = this.isWriter(step);
    const end = step.startedAt + step.durationMs;
    const needs: Need[] = [];
    for (const other of this.timed) {
      if (other.agentId === step.agentId) continue;
      const otherEnd = other.startedAt + other.durationMs;
      if (otherEnd < step.startedAt || (writer && this.isWriter(other) && otherEnd < end))
        needs.push({ step: other, until: 'ended' });
      else if (writer && other.kind === 'model' && other.startedAt < end) needs.push({ step: other, until: 'started' });
    }
    return needs;
  }

  private isWriter(step: TimedStep): boolean {
    return step.kind === 'tool' && this.writers.has(step.toolName);
  }

  private met(need: Need): boolean {
    return (need.until === 'started' ? this.started : this.finished).has(need.step.step);
  }

  /**
   * Resolves once what `step` waits for has happened (or the replay ended), and marks it started
   * unless `mark` is false (an inbox drained before a model call: marked once it is drained).
   */
  async ready(step: TimedStep | undefined, mark = true): Promise<void> {
    if (!step) return;
    const needs = this.released ? [] : this.needs(step).filter((need) => !this.met(need));
    if (needs.length > 0)
      await new Promise<void>((resolve) => this.waiters.add({ agentId: step.agentId, step, needs, resolve }));
    if (mark) this.start(step.step);
  }

  /** Recorded step `step` has started in the replay (a model call: its agent's inbox was drained). */
  start(step: number): void {
    if (this.started.has(step)) return;
    this.started.add(step);
    this.wake();
  }

  /** Recorded step `step` has ended in the replay. */
  finish(step: number): void {
    if (this.finished.has(step)) return;
    this.started.add(step);
    this.finished.add(step);
    this.wake();
  }

  /** The replay ended: nobody waits any more. */
  release(): void {
    this.released = true;
    this.wake();
  }

  /** The agents blocked now, with the first thing each waits for. */
  blocked(): Map<string, { step: TimedStep; waitsFor: Need | undefined }> {
    const blocked = new Map<string, { step: TimedStep; waitsFor: Need | undefined }>();
    for (const waiter of this.waiters)
      blocked.set(waiter.agentId, { step: waiter.step, waitsFor: waiter.needs.find((need) => !this.met(need)) });
    return blocked;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (!this.released && !waiter.needs.every((need) => this.met(need))) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }
}
