/**
 * What one replay knows while it runs, shared by the replay model client, the recorded tools,
 * the recorded approvals and the runner: which recorded steps each agent has left, which agent
 * is working now (the lead, or the sub-agent a `task` call started), which steps were used, the
 * first divergence, and where the replay must stop (`--until`, the end of a truncated
 * recording). The first divergence ends the replay: nothing is invented past it.
 */
import type { AgentEvent } from '../events/events';
import type { Divergence } from './divergence';
import type { LoadedRecording } from './loaded-recording';
import type { InterruptStep, ModelStep, RecordedStep, ToolStep } from './recording';

export type ReplayEnd =
  | { kind: 'divergence'; divergence: Divergence }
  | { kind: 'until'; step: number }
  /** A recording of a run that never finished ends here; replaying it up to there reproduced it. */
  | { kind: 'truncated'; step: number };

export interface ReplayStateOptions {
  until?: number;
  /** Stops the run in progress (the runner's conversation). */
  stop(): void;
  /** Interrupts as the user did at that point: a Stop, or a redirect with the next recorded words. */
  interrupt(step: InterruptStep): void;
}

export class ReplayState {
  /** Recorded agent id → its model steps in order, and how many were served. */
  private readonly modelSteps = new Map<string, { steps: ModelStep[]; next: number }>();
  private readonly toolSteps = new Map<string, ToolStep>();
  private readonly interrupts = new Map<number, InterruptStep>();
  /** Steps the replay used (served, executed, answered, submitted, triggered, seen). */
  readonly used = new Set<number>();
  /** Tool steps the replay's gate was asked about, and those whose recorded result was returned. */
  readonly askedNow = new Set<number>();
  readonly executed = new Set<number>();
  private ending: ReplayEnd | undefined;
  /** The replay's clock follows the recorded steps' start times. */
  private time: number;
  readonly leadId: string;
  private readonly recordedSubagents: string[];
  private readonly subagentMap = new Map<string, string>();
  private readonly openSubagents: string[] = [];
  /** The step being replayed most recently (for divergences found outside any step). */
  currentStep = 0;

  constructor(
    readonly loaded: LoadedRecording,
    private readonly options: ReplayStateOptions,
  ) {
    const steps = loaded.recording.steps;
    this.time = loaded.recording.manifest.startedAt;
    const agents: string[] = [];
    for (const step of steps) {
      if (step.kind === 'model' || step.kind === 'tool') {
        if (!agents.includes(step.agentId)) agents.push(step.agentId);
      }
      if (step.kind === 'model') {
        const queue = this.modelSteps.get(step.agentId) ?? { steps: [], next: 0 };
        queue.steps.push(step);
        this.modelSteps.set(step.agentId, queue);
      } else if (step.kind === 'tool') {
        this.toolSteps.set(toolKey(step.agentId, step.toolCallId), step);
      }
    }
    for (const step of steps) {
      if (step.kind !== 'interrupt') continue;
      const during = step.during ?? lastWorkBefore(steps, step.step);
      if (during !== undefined) this.interrupts.set(during, step);
    }
    this.leadId = agents.includes('lead') ? 'lead' : (steps.find((step) => step.kind === 'model')?.agentId ?? 'lead');
    // Teammates (agents given prompts of their own) are not sub-agents: a `task` call never maps to one.
    const teammates = new Set(steps.flatMap((step) => (step.kind === 'prompt' && step.agentId ? [step.agentId] : [])));
    this.recordedSubagents = agents.filter((agent) => agent !== this.leadId && !teammates.has(agent));
  }

  get ended(): ReplayEnd | undefined {
    return this.ending;
  }

  get divergence(): Divergence | undefined {
    return this.ending?.kind === 'divergence' ? this.ending.divergence : undefined;
  }

  get until(): number | undefined {
    return this.options.until;
  }

  now = (): number => this.time++;

  /** The replay reached recorded step `step`: false (and the replay stops) when it is past `until`. */
  reach(step: RecordedStep): boolean {
    if (this.ending) return false;
    if (this.options.until !== undefined && step.step > this.options.until) {
      this.end({ kind: 'until', step: this.options.until });
      return false;
    }
    if ('startedAt' in step && step.startedAt > this.time) this.time = step.startedAt;
    this.currentStep = step.step;
    this.used.add(step.step);
    return true;
  }

  /** The first divergence ends the replay; later ones are consequences and are not kept. */
  diverge(divergence: Divergence): void {
    this.end({ kind: 'divergence', divergence });
  }

  /** The run went past what the recording has: the end of an unfinished recording, else a divergence. */
  pastTheEnd(divergence: Divergence): void {
    if (this.loaded.recording.unfinished && this.isLastWork(this.currentStep))
      this.end({ kind: 'truncated', step: this.currentStep });
    else this.diverge(divergence);
  }

  end(ending: ReplayEnd): void {
    if (this.ending) return;
    this.ending = ending;
    this.options.stop();
  }

  /** Follows the run's events: which sub-agent is working (sub-agents run one at a time). */
  observe(event: AgentEvent): void {
    if (event.type === 'subagent_start') {
      const recorded = this.recordedSubagents.includes(event.subagentId)
        ? event.subagentId
        : this.recordedSubagents[this.subagentMap.size];
      this.subagentMap.set(event.subagentId, recorded ?? `unrecorded sub-agent ${event.subagentId}`);
      this.openSubagents.push(event.subagentId);
    } else if (event.type === 'subagent_end') {
      const index = this.openSubagents.lastIndexOf(event.subagentId);
      if (index >= 0) this.openSubagents.splice(index, 1);
    }
  }

  /** The recorded id of the agent working now. */
  currentAgent(): string {
    const open = this.openSubagents.at(-1);
    return open === undefined ? this.leadId : this.recordedAgent(open);
  }

  /** The recorded id of a replay agent id. */
  recordedAgent(replayAgentId: string): string {
    if (replayAgentId === 'lead') return this.leadId;
    return this.subagentMap.get(replayAgentId) ?? replayAgentId;
  }

  /** The next recorded model step of `agentId`, taken; undefined when it has none left. */
  takeModelStep(agentId: string): { step: ModelStep | undefined; made: number } {
    const queue = this.modelSteps.get(agentId);
    if (!queue) return { step: undefined, made: 0 };
    const step = queue.steps[queue.next];
    if (step) queue.next++;
    return { step, made: queue.next - (step ? 1 : 0) };
  }

  /** The next recorded model step of `agentId` without taking it (a re-run decides where to go live). */
  peekModelStep(agentId: string): ModelStep | undefined {
    const queue = this.modelSteps.get(agentId);
    return queue?.steps[queue.next];
  }

  toolStep(agentId: string, toolCallId: string): ToolStep | undefined {
    return this.toolSteps.get(toolKey(agentId, toolCallId));
  }

  interruptDuring(step: number): InterruptStep | undefined {
    const interrupt = this.interrupts.get(step);
    return interrupt && !this.used.has(interrupt.step) ? interrupt : undefined;
  }

  /** Interrupts the run as the recording did at this point. */
  triggerInterrupt(interrupt: InterruptStep): void {
    if (this.ending) return;
    if (this.options.until !== undefined && interrupt.step > this.options.until) {
      this.end({ kind: 'until', step: this.options.until });
      return;
    }
    this.used.add(interrupt.step);
    this.options.interrupt(interrupt);
  }

  /** True when no recorded step comes after `step`: a truncated recording ends there. */
  isLastWork(step: number): boolean {
    return !this.loaded.recording.steps.some((candidate) => candidate.step > step && candidate.kind !== 'interrupt');
  }
}

function toolKey(agentId: string, toolCallId: string): string {
  return `${agentId}\u0000${toolCallId}`;
}

/** The model or tool step just before `step` (an interrupt recorded without `during`). */
function lastWorkBefore(steps: readonly RecordedStep[], step: number): number | undefined {
  let found: number | undefined;
  for (const candidate of steps) {
    if (candidate.step >= step) break;
    if (candidate.kind === 'model' || candidate.kind === 'tool') found = candidate.step;
  }
  return found;
}
