/**
 * Builds a new conversation from its parts: the routed models, the system prompt, the host's
 * tools and what comes with them (ConversationParts), and — when teams are on — how a teammate's
 * own loop is made. The lead and its teammates share limits, approvals, tracing, policy and
 * budgets; teammates do delegated work, so they use the model policy's sub-agent model.
 */
import type { AgentLimits } from '../agent/agent-loop';
import { Conversation } from '../agent/conversation';
import type { Hooks } from '../agent/hooks';
import type { ApprovalGate } from '../policy/approval';
import type { BudgetGuard } from '../policy/budget';
import type { ImageStore, StoredConversation, TranscriptSink } from '../ports';
import { ImageKeeper } from '../images/image-keeper';
import type { KnownSecrets } from '../llm/redact';
import type { AnyTool } from '../tools/tool';
import { ConversationParts, type ConversationPartsDeps } from './conversation-parts';
import type { RoutedModels } from './model-routing';
import type { RestoredConversation } from './restore';
import type { SystemPrompt } from '../agent/system-prompt';
import { lastTurn } from '../agent/turn-checkpoints';
import { reviewedIn } from '../agent/tool-review';
import type { RunRecorder } from '../replay/run-recorder';

export interface AssemblyDeps extends ConversationPartsDeps {
  /** Limits for new conversations (unset values keep the defaults). */
  readLimits?(): Partial<AgentLimits>;
  transcripts?: TranscriptSink;
  /** Hooks every conversation runs (other extensions' through the extension API). */
  hooks?: Hooks;
  /** Budgets every model call of every conversation is checked against. */
  budget?: BudgetGuard;
  newId(): string;
  /** The user's say on whether a model takes images (the setting); undefined: model-info guesses. */
  acceptsImages?(model: string): boolean | undefined;
  /** A store failure (an image not kept), for the host to show once. */
  onStoreError?: (error: unknown) => void;
}

export interface AssemblyInput {
  routed: RoutedModels;
  system: SystemPrompt;
  /** Tools fetched for this conversation (MCP servers'). */
  connected: AnyTool[];
  planModeOn: boolean;
  teamsOn: () => boolean;
  approvals: ApprovalGate | undefined;
  /** Read at each model call, so the switch applies live. */
  tracing: { enabled: () => boolean; secrets: () => KnownSecrets };
  /** A conversation reopened from the store, continued with its history. */
  reopened?: { conversation: StoredConversation; restored: RestoredConversation };
  /** Records every run for replay: the lead's and its teammates' model calls, and the teammates' prompts. */
  recorder?: RunRecorder;
  /** Where the conversation's images are kept (the store's); undefined: they are not kept. */
  images?: ImageStore;
}

/**
 * A new conversation and its parts. `attach` runs before the parts bind to the conversation, so
 * whoever listens sees the first events the parts report (plan mode on, a team's tools).
 */
export function assembleConversation(
  deps: AssemblyDeps,
  input: AssemblyInput,
  attach: (conversation: Conversation, parts: ConversationParts) => void,
): void {
  const { routed, reopened } = input;
  const { text: system, instructions } = input.system;
  // The meter counts instructions given later in the conversation as rules too.
  const knowledge = instructions ? instructions.knowledgeWith(input.system.knowledge) : input.system.knowledge;
  const parts = new ConversationParts(
    deps,
    input.planModeOn,
    input.connected,
    input.teamsOn,
    reopened ? lastTurn(reopened.restored.events) : 0,
  );
  // A preset's tool list narrows what plan mode, trust and policy offer (sub-agents inherit it).
  const presetOffers = input.system.offersTool;
  const offerTool = presetOffers
    ? (tool: AnyTool) => presetOffers(tool.name) && parts.offerTool(tool)
    : parts.offerTool;
  const offerTeammateTool = presetOffers
    ? (tool: AnyTool) => presetOffers(tool.name) && parts.offerTeammateTool(tool)
    : parts.offerTeammateTool;
  // The parts' own array: the session and a team add their inboxes to it later.
  if (instructions) parts.inboxes.push(instructions.inbox);
  const id = reopened?.conversation.id ?? deps.newId();
  // The lead's and its teammates' images (prompts, read_file results), kept under the conversation.
  const keeper = input.images && new ImageKeeper(input.images, id, (error) => deps.onStoreError?.(error));
  const shared = {
    compactionModel: routed.compaction,
    finalSummaryModel: routed.finalSummary,
    clock: deps.clock,
    budget: deps.budget,
    hooks: deps.hooks,
    knowledge,
    limits: () => deps.readLimits?.() ?? {},
    approvals: input.approvals,
    tracing: input.tracing,
    policy: reviewedIn(deps.toolPolicy, deps.workspaceRoot),
    assessor: parts.assessor,
    recorder: input.recorder,
    keepImages: keeper?.keep,
    acceptsImages: deps.acceptsImages && ((model: string) => deps.acceptsImages?.(model)),
  };
  const conversation = new Conversation({
    ...shared,
    model: routed.main,
    work: routed.work,
    subagentModel: routed.subagent,
    id,
    resume: reopened && { history: reopened.restored.history, nextSeq: reopened.restored.nextSeq },
    system,
    transcripts: deps.transcripts,
    tools: parts.tools,
    inboxes: parts.inboxes,
    offerTool,
  });
  // Files read, edited or mentioned bring the instructions about them (scoped-instructions.ts).
  if (instructions) conversation.subscribe((event) => instructions.observe(event));
  attach(conversation, parts);
  parts.bind(conversation, (spec) => {
    const teammate = new Conversation({
      ...shared,
      model: routed.subagent,
      work: 'subagent',
      id: conversation.id,
      agentId: spec.name,
      system: `${system}\n\n${spec.brief}`,
      tools: spec.tools,
      inboxes: [spec.inbox],
      offerTool: offerTeammateTool,
      subagents: false,
    });
    // Its tool calls reach the lead's stream (team.ts); what it was asked to do, only its own.
    teammate.subscribe((event) => {
      if (event.type === 'user_message') input.recorder?.observe(event);
    });
    return teammate;
  });
}
