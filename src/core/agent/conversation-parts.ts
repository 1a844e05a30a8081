/**
 * What one conversation gets beside its loop: the host's workspace tools (their file writes
 * checkpointed per turn), background jobs, and plan mode — with the tools, inboxes and tool
 * filter they add to the Conversation, and what ends with it (running jobs are killed).
 */
import type { Clock, ProcessRunner, WorkspaceFiles } from '../ports';
import { BackgroundJobs } from '../tools/background-jobs';
import { createBackgroundTools } from '../tools/builtin/background';
import type { AnyTool } from '../tools/tool';
import { Checkpoints } from '../workspace/checkpoints';
import type { Conversation } from './conversation';
import type { AgentEvent } from './events';
import { PlanMode } from './plan-mode';
import { TurnCheckpoints } from './turn-checkpoints';

export interface ConversationPartsDeps {
  clock: Clock;
  /** The workspace the agent works in; its file writes are checkpointed per turn. */
  workspace?: () => WorkspaceFiles | undefined;
  /** The host's tools; `workspace` is the checkpointed one, file tools must write through it. */
  tools?: (workspace: WorkspaceFiles | undefined) => AnyTool[];
  /** Runs background jobs (background_run); without it that tool is not offered. */
  processRunner?: ProcessRunner;
  /** Where background jobs run (the workspace folder). */
  workspaceRoot?: () => string | undefined;
  /** False in an untrusted workspace: only read-only tools are offered then (SPEC 4.2). */
  isTrusted?: () => boolean;
}

export class ConversationParts {
  readonly planMode: PlanMode;
  readonly checkpoints: TurnCheckpoints | undefined;
  readonly tools: AnyTool[];
  readonly inboxes: Array<() => string[]>;
  private readonly jobs: BackgroundJobs | undefined;
  private conversation: Conversation | undefined;

  constructor(
    private readonly deps: ConversationPartsDeps,
    planModeOn: boolean,
  ) {
    const workspace = deps.workspace?.();
    const checkpoints = workspace && new Checkpoints(workspace);
    this.checkpoints = checkpoints && new TurnCheckpoints(checkpoints, (body) => this.conversation?.report(body));
    this.planMode = new PlanMode(planModeOn, (body) => this.conversation?.report(body));
    this.jobs =
      deps.processRunner &&
      new BackgroundJobs({
        runner: deps.processRunner,
        clock: deps.clock,
        // A finished job is also shown to the user.
        onComplete: (job) =>
          this.conversation?.report({
            type: 'background_result',
            jobId: job.id,
            command: job.command,
            output: job.output,
            exitCode: job.exitCode ?? null,
          }),
      });
    this.tools = [
      ...(deps.tools?.(checkpoints?.tracked() ?? workspace) ?? []),
      ...(this.jobs ? createBackgroundTools(this.jobs, () => deps.workspaceRoot?.()) : []),
      this.planMode.tool(),
    ];
    this.inboxes = [
      ...(this.jobs ? [this.jobs.drainCompleted] : []),
      ...(this.checkpoints ? [this.checkpoints.drainNotes] : []),
      this.planMode.drainNotes,
    ];
  }

  /** Which tools the model is offered now: plan mode and Workspace Trust leave only reading ones. */
  readonly offerTool = (tool: AnyTool): boolean =>
    this.planMode.offers(tool) && (tool.readOnly || (this.deps.isTrusted?.() ?? true));

  /** Connects the parts to the conversation they report into. */
  bind(conversation: Conversation): void {
    this.conversation = conversation;
    if (this.planMode.active) conversation.report({ type: 'plan_mode', active: true, reason: 'user' });
  }

  /** A prompt starts a new turn (for checkpoints). */
  beginTurn(): void {
    this.checkpoints?.beginTurn();
  }

  observe(event: AgentEvent): void {
    this.checkpoints?.observe(event);
  }

  /** The conversation is closing: its background jobs are killed. */
  async dispose(): Promise<void> {
    this.conversation = undefined;
    await this.jobs?.dispose();
  }
}
