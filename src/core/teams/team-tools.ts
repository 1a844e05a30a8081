/**
 * The team tools (SPEC 2.8). The lead: spawn_teammate, list_teammates, send_message,
 * read_inbox, broadcast, shutdown_request, check_protocol. A teammate: list_teammates,
 * send_message, read_inbox, broadcast, check_protocol, plan_review. They move messages between
 * the agents, never touch the workspace, so they count as read-only (no approval asked).
 */
import { z } from 'zod';
import { defineTool, refusalsAsResults, type AnyTool, type ToolContext } from '../tools/tool';
import { formatMessages, LEAD, TeamError } from './team-bus';
import type { Team } from './team';

const NAME = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, 'lowercase letters, digits and hyphens, starting with a letter');

const MAX_WAIT_SECONDS = 300;

/** The lead's team tools, offered only while the conversation's team switch is on. */
export const LEAD_TEAM_TOOLS: ReadonlySet<string> = new Set([
  'spawn_teammate',
  'list_teammates',
  'send_message',
  'read_inbox',
  'broadcast',
  'shutdown_request',
  'check_protocol',
]);

export function createLeadTools(team: Team): AnyTool[] {
  const spawn = defineTool({
    name: 'spawn_teammate',
    description:
      'Start a teammate: another agent with its own context that works at the same time as you, with file, bash, ' +
      'task board and messaging tools. Give it a role and a prompt that says everything it needs. Idle teammates ' +
      'claim unowned tasks from the task board by themselves, so create the tasks first. At most a few teammates.',
    inputSchema: z.object({
      name: NAME.refine((name) => name !== LEAD, 'the lead is called "lead"'),
      role: z.string().trim().min(1).max(200).describe('e.g. "backend developer", "test writer"'),
      prompt: z.string().trim().min(1).max(50_000),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `start the teammate ${input.name} (${input.role})`,
    execute: (input) =>
      refusalsAsResults(TeamError, async () => {
        await team.spawn(input.name, input.role, input.prompt);
        return `Started ${input.name}. It works on its prompt, then picks up unowned tasks; its messages reach your inbox.`;
      }),
  });
  const shutdown = defineTool({
    name: 'shutdown_request',
    description:
      'Ask a teammate to stop once it has finished what it is doing. It answers (approve or reject, with why); an ' +
      'approving teammate stops. Returns the request id for check_protocol.',
    inputSchema: z.object({ name: NAME, reason: z.string().max(2_000).optional() }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `ask ${input.name} to shut down`,
    execute: (input) =>
      refusalsAsResults(TeamError, async () => {
        if (team.states().find((entry) => entry.name === input.name)?.state === 'shutdown')
          return `${input.name} has already shut down.`;
        const id = await team.bus.request('shutdown', LEAD, input.name, input.reason?.trim() || 'The work is done.');
        return `Sent shutdown request ${id} to ${input.name}. Its answer will reach your inbox.`;
      }),
  });
  return [spawn, ...sharedTools(team, LEAD), shutdown];
}

export function createMemberTools(team: Team, name: string): AnyTool[] {
  const planReview = defineTool({
    name: 'plan_review',
    description:
      'Ask the lead to approve your plan before you change anything. Returns a request id; the answer reaches your ' +
      'inbox (read_inbox with waitSeconds waits for it).',
    inputSchema: z.object({ plan: z.string().trim().min(1).max(50_000) }),
    readOnly: true,
    needsApproval: false,
    summarize: () => 'ask the lead to approve a plan',
    execute: (input) =>
      refusalsAsResults(TeamError, async () => {
        const id = await team.bus.request('plan', name, LEAD, input.plan);
        return `Sent your plan to the lead as ${id}. Wait for the answer (read_inbox with waitSeconds) before changing anything.`;
      }),
  });
  return [...sharedTools(team, name), planReview];
}

function sharedTools(team: Team, self: string): AnyTool[] {
  const list = defineTool({
    name: 'list_teammates',
    description: 'List the team: each teammate’s name, role and whether it is working, idle or shut down.',
    inputSchema: z.object({}),
    readOnly: true,
    needsApproval: false,
    summarize: () => 'list the teammates',
    execute: () =>
      refusalsAsResults(TeamError, async () => {
        const { members } = await team.bus.read();
        const states = new Map(team.states().map((entry) => [entry.name, entry.state]));
        if (members.length === 0) return 'There are no teammates yet.';
        return members
          .map((member) => `${member.name} (${member.role}): ${states.get(member.name) ?? 'shutdown'}`)
          .join('\n');
      }),
  });
  const send = defineTool({
    name: 'send_message',
    description:
      'Send a message to "lead" or a teammate by name. To answer a protocol request (a shutdown request, a plan ' +
      'review), add approve (true or false) and respondTo (the request id; without it, the oldest open request from ' +
      'that agent is answered).',
    inputSchema: z.object({
      to: z.string().trim().min(1).max(32),
      text: z.string().trim().min(1).max(50_000),
      approve: z.boolean().optional(),
      respondTo: z
        .string()
        .regex(/^req-\d+$/)
        .optional(),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) =>
      `message ${input.to}${input.approve === undefined ? '' : input.approve ? ' (approve)' : ' (reject)'}`,
    execute: (input) =>
      refusalsAsResults(TeamError, async () => {
        if (input.to === self) throw new TeamError('That is you: send the message to someone else.');
        if (input.approve === undefined && input.respondTo === undefined) {
          await team.bus.send({ from: self, to: input.to, text: input.text, kind: 'message' });
          return `Sent to ${input.to}.`;
        }
        const request = await team.bus.respond(self, input.to, input.respondTo, input.approve ?? false, input.text);
        if (request.kind === 'shutdown' && request.status === 'approved') {
          team.approveShutdown(self);
          return `You approved ${request.id}: you stop now.`;
        }
        return `Answered ${request.id}: ${request.status}.`;
      }),
  });
  const read = defineTool({
    name: 'read_inbox',
    description:
      'Read (and clear) your unread messages. With waitSeconds, wait up to that long for one to arrive when there ' +
      'are none — to wait for teammates to report.',
    inputSchema: z.object({ waitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional() }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => (input.waitSeconds ? `wait up to ${input.waitSeconds} s for messages` : 'read the inbox'),
    execute: (input, context: ToolContext) =>
      refusalsAsResults(TeamError, async () => {
        const deadline = Date.now() + (input.waitSeconds ?? 0) * 1000;
        for (;;) {
          const messages = await team.bus.drain(self);
          if (messages.length) return formatMessages(messages);
          if (Date.now() >= deadline || context.signal.aborted || team.isDisposed) return 'No new messages.';
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }),
  });
  const broadcast = defineTool({
    name: 'broadcast',
    description: 'Send one message to the whole team (the lead and every teammate but you).',
    inputSchema: z.object({ text: z.string().trim().min(1).max(50_000) }),
    readOnly: true,
    needsApproval: false,
    summarize: () => 'message the whole team',
    execute: (input) =>
      refusalsAsResults(TeamError, async () => `Sent to ${await team.bus.broadcast(self, input.text)} agent(s).`),
  });
  const check = defineTool({
    name: 'check_protocol',
    description:
      'Show a protocol request (shutdown or plan review) by id: who asked whom, and whether it was answered.',
    inputSchema: z.object({ requestId: z.string().regex(/^req-\d+$/) }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `check ${input.requestId}`,
    execute: (input) =>
      refusalsAsResults(TeamError, async () => {
        const request = await team.bus.requestStatus(input.requestId);
        return `${request.id}: ${request.kind} from ${request.from} to ${request.to}, ${request.status}${request.response ? ` — ${request.response}` : ''}`;
      }),
  });
  return [list, send, read, broadcast, check];
}
