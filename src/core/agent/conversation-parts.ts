/**
 * What one conversation gets beside its loop: the host's workspace tools (their file writes
 * checkpointed per turn), background jobs, and plan mode — with the tools, inboxes and tool
 * filter they add to the Conversation, and what ends with it (running jobs are killed).
 */
import type { Clock, ProcessRunner, TaskBoardStorage, WorkspaceFiles } from '../ports';
import { TaskBoard } from '../tasks/task-board';
import { createTaskTools, formatBoard } from '../tools/builtin/tasks';
import { BackgroundJobs } from '../tools/background-jobs';
import { createBackgroundTools } from '../tools/builtin/background';
import type { AnyTool } from '../tools/tool';
import { Checkpoints } from '../workspace/checkpoints';
import type { Inbox } from './agent-loop';
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
  /** Where task boards persist; without it the task tools are not offered. */
  taskStorage?: TaskBoardStorage;
}

export class ConversationParts {
  readonly planMode: PlanMode;
  readonly checkpoints: TurnCheckpoints | undefined;
  readonly tools: AnyTool[];
  readonly inboxes: Inbox[];
  private readonly jobs: BackgroundJobs | undefined;
  private conversation: Conversation | undefined;
  /** Set by a compaction: the next turn is reminded of the task board. */
  private compacted = false;

  constructor(
    private readonly deps: ConversationPartsDeps,
    planModeOn: boolean,
    /** Tools fetched for this conversation beside the host's (MCP servers'). */
    connectedTools: AnyTool[] = [],
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
      ...connectedTools,
      ...(deps.taskStorage ? createTaskTools((context) => this.board(context.conversationId)!) : []),
    ];
    this.inboxes = [
      ...(this.jobs ? [this.jobs.drainCompleted] : []),
      ...(this.checkpoints ? [this.checkpoints.drainNotes] : []),
      this.planMode.drainNotes,
      this.drainTaskReminder,
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
    if (event.type === 'compact' && event.kind !== 'micro') this.compacted = true;
  }

  /** The conversation's task board (it outlives the conversation's history). */
  board(conversationId: string): TaskBoard | undefined {
    const storage = this.deps.taskStorage;
    return (
      storage &&
      new TaskBoard({
        storage,
        boardId: conversationId,
        now: () => this.deps.clock.now(),
        report: (body) => this.conversation?.report(body),
      })
    );
  }

  /** After a compaction, the open tasks go to the model word for word. */
  private readonly drainTaskReminder = async (): Promise<string[]> => {
    if (!this.compacted || !this.conversation) return [];
    this.compacted = false;
    const tasks = (await this.board(this.conversation.id)?.list()) ?? [];
    if (!tasks.some((task) => task.status !== 'completed')) return [];
    return [`[The task board, kept through the compaction:]\n${formatBoard(tasks)}`];
  };

  /** The conversation is closing: its background jobs are killed. */
  async dispose(): Promise<void> {
    this.conversation = undefined;
    await this.jobs?.dispose();
  }
}
