/**
 * The order a team replay keeps between agents. A team's agents run concurrently, and what one
 * sees depends on what the others did before (the lead's inbox holds the messages its teammates
 * had sent when it asked its model). The recording says which steps of the other agents had
 * ended before a step started (`startedAt`, `durationMs`, on the run's one clock); a replayed
 * step starts only once those steps have ended in the replay too. Steps that overlapped in the
 * recording stay free to interleave: the replay compares each agent's own sequence, never the
 * order across agents.
 *
 * Steps that write to the team's shared inboxes (`writers`: send_message, broadcast…) also keep
 * their recorded start order across agents, since the order of the messages in an inbox is what
 * the reader sees and the recording keeps no other trace of it. Writers never wait for anything
 * but other writers, so this adds no cycle.
 *
 * The recorded run is itself a schedule that met every such wait, so a faithful recording
 * cannot deadlock: a step only waits for steps that ended strictly before it started. A damaged
 * or reordered recording can; `stuck` tells the team's watchdog what each blocked agent waits for.
 */
import type { ModelStep, ToolStep } from './recording';

type TimedStep = ModelStep | ToolStep;

interface Waiter {
  agentId: string;
  step: TimedStep;
  ready: () => boolean;
  resolve: () => void;
}

export class ReplayOrder {
  private readonly timed: TimedStep[];
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

  /** The steps of other agents that ended, in the recording, before `step` started. */
  private before(step: TimedStep): TimedStep[] {
    const writer = this.isWriter(step);
    return this.timed.filter(
      (other) =>
        other.agentId !== step.agentId &&
        (other.startedAt + other.durationMs < step.startedAt ||
          (writer && this.isWriter(other) && other.step < step.step)),
    );
  }

  private isWriter(step: TimedStep): boolean {
    return step.kind === 'tool' && this.writers.has(step.toolName);
  }

  /** Resolves once every step of another agent that ended before `step` began has ended now. */
  async ready(step: TimedStep | undefined): Promise<void> {
    if (!step || this.released) return;
    const awaited = this.before(step);
    const ready = () => this.released || awaited.every((other) => this.finished.has(other.step));
    if (ready()) return;
    await new Promise<void>((resolve) => this.waiters.add({ agentId: step.agentId, step, ready, resolve }));
  }

  /** Recorded step `step` has ended in the replay. */
  finish(step: number): void {
    if (this.finished.has(step)) return;
    this.finished.add(step);
    this.wake();
  }

  /** The replay ended: nobody waits any more. */
  release(): void {
    this.released = true;
    this.wake();
  }

  /** The agents blocked now, with the first step each waits for. */
  blocked(): Map<string, { step: TimedStep; waitsFor: TimedStep | undefined }> {
    const blocked = new Map<string, { step: TimedStep; waitsFor: TimedStep | undefined }>();
    for (const waiter of this.waiters)
      blocked.set(waiter.agentId, {
        step: waiter.step,
        waitsFor: this.before(waiter.step).find((other) => !this.finished.has(other.step)),
      });
    return blocked;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (!waiter.ready()) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }
}
