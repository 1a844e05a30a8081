/**
 * What one conversation gets beside its loop: the host's workspace tools (their file writes
 * checkpointed per turn), background jobs, plan mode, the task board, connected (MCP) tools
 * and, when its switch is on, a team — with the tools, inboxes and tool filter they add to the
 * Conversation, and what ends with it (running jobs are killed, teammates stopped).
 */
import type { Clock, CommandSandbox, ProcessRunner, TaskBoardStorage, TeamStorage, WorkspaceFiles } from '../ports';
import { Team, type TeammateLoop, type TeammateSpec } from '../teams/team';
import { TeamBus } from '../teams/team-bus';
import { LEAD_TEAM_TOOLS } from '../teams/team-tools';
import { TaskBoard } from '../tasks/task-board';
import { createTaskTools, formatBoard } from '../tools/builtin/tasks';
import { BackgroundJobs } from '../tools/background-jobs';
import { createBackgroundTools } from '../tools/builtin/background';
import type { AnyTool } from '../tools/tool';
import { Checkpoints } from '../workspace/checkpoints';
import { CallAssessor, type ProtectedPlace } from '../policy/call-risk';
import type { ToolPolicy } from '../policy/approval';
import type { Inbox } from '../events/inbox';
import type { Conversation } from '../agent/conversation';
import type { AgentEvent } from '../events/events';
import { PlanMode } from '../agent/plan-mode';
import { TurnCheckpoints } from '../agent/turn-checkpoints';

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
  /** Whether agent commands run confined (Linux: bubblewrap); absent where there is no sandbox. */
  sandbox?: CommandSandbox;
  /** The workspace's secret files, ignored ones included (relative paths). */
  secretFiles?: (root: string) => Promise<readonly string[]>;
  /** The workspace's protected set on real paths (the sandbox's too). */
  protectedPaths?: (root: string) => Promise<readonly ProtectedPlace[]>;
  /** False in an untrusted workspace: only read-only tools are offered then (SPEC 4.2). */
  isTrusted?: () => boolean;
  /** Where task boards persist; without it the task tools are not offered. */
  taskStorage?: TaskBoardStorage;
  /** Where teams persist (members, inboxes, protocol requests); without it there are no teams. */
  teamStorage?: TeamStorage;
  /** At most this many teammates per conversation (default 5). */
  maxTeammates?: () => number;
  /** The tool rules (policy as code); also decides which tools are offered at all. */
  toolPolicy?: ToolPolicy & { offers(toolName: string): boolean };
}

export class ConversationParts {
  readonly planMode: PlanMode;
  readonly checkpoints: TurnCheckpoints | undefined;
  readonly tools: AnyTool[];
  readonly inboxes: Inbox[];
  private readonly jobs: BackgroundJobs | undefined;
  private conversation: Conversation | undefined;
  private team: Team | undefined;
  /** Set by a compaction: the next turn is reminded of the task board. */
  private compacted = false;
  /** Assesses every tool call of the conversation and its teammates (call-risk.ts). */
  readonly assessor: CallAssessor;

  constructor(
    private readonly deps: ConversationPartsDeps,
    planModeOn: boolean,
    /** Tools fetched for this conversation beside the host's (MCP servers'). */
    connectedTools: AnyTool[] = [],
    /** Whether the conversation's team switch is on (the team tools are offered then). */
    private readonly teamsOn: () => boolean = () => false,
    /** Turns a reopened conversation already had: checkpoints number theirs on from there. */
    turnsBefore = 0,
  ) {
    const workspace = deps.workspace?.();
    this.assessor = new CallAssessor(
      () => workspace,
      () => deps.sandbox?.status(),
      deps.secretFiles,
      deps.protectedPaths,
    );
    const checkpoints = workspace && new Checkpoints(workspace, turnsBefore);
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

  /**
   * Which tools the model is offered now: plan mode and Workspace Trust leave only reading ones;
   * the lead's team tools only while the team switch is on.
   */
  readonly offerTool = (tool: AnyTool): boolean =>
    (!LEAD_TEAM_TOOLS.has(tool.name) || this.teamsOn()) && this.offerTeammateTool(tool);

  /** What a teammate is offered: the same plan mode and trust rules, its messaging tools always. */
  readonly offerTeammateTool = (tool: AnyTool): boolean =>
    this.planMode.offers(tool) &&
    (tool.readOnly || (this.deps.isTrusted?.() ?? true)) &&
    (this.deps.toolPolicy?.offers(tool.name) ?? true);

  /** Connects the parts to the conversation they report into; `createTeammate` makes teammates' loops. */
  bind(conversation: Conversation, createTeammate?: (spec: TeammateSpec) => TeammateLoop): void {
    this.conversation = conversation;
    if (this.deps.teamStorage && createTeammate) {
      const team = new Team({
        bus: new TeamBus(this.deps.teamStorage, conversation.id, () => this.deps.clock.now()),
        board: () => this.board(conversation.id)!,
        report: (body, agentId) => this.conversation?.report(body, agentId),
        createTeammate,
        // Teammates get the workspace, bash, jobs, MCP and task tools — not the plan tool or sub-agents.
        memberTools: () => this.tools.filter((tool) => tool.name !== 'present_plan' && !LEAD_TEAM_TOOLS.has(tool.name)),
        maxTeammates: () => this.deps.maxTeammates?.() ?? 5,
      });
      this.team = team;
      for (const tool of team.leadTools()) conversation.tools.register(tool);
      this.inboxes.push(team.drainLead);
    }
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
    // Teammates stop with the conversation (after the tool call each is in).
    await this.team?.dispose();
    this.conversation = undefined;
    await this.jobs?.dispose();
  }
}
