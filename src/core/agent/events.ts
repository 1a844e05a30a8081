/**
 * The agent's event protocol: one discriminated union, validated with zod, shared by both
 * webviews, the CLI, the audit trail and tests. Every event names its conversation, the agent
 * that produced it (the lead, a sub-agent or a teammate) and a per-conversation sequence number.
 * Event kinds are added here as the runtime grows; names follow SPEC.md section 2.2.
 */
import { z } from 'zod';

const eventBase = {
  conversationId: z.string().min(1),
  agentId: z.string().min(1),
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the epoch. */
  time: z.number(),
};

export const tokenUsageSchema = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative(),
  cacheWriteTokens: z.number().nonnegative(),
});

export const agentEventSchema = z.discriminatedUnion('type', [
  z.object({ ...eventBase, type: z.literal('user_message'), text: z.string() }),
  z.object({ ...eventBase, type: z.literal('text_delta'), text: z.string() }),
  z.object({
    ...eventBase,
    type: z.literal('usage'),
    model: z.string(),
    usage: tokenUsageSchema,
    /** False when the server reported nothing and the numbers are an estimate. */
    reported: z.boolean(),
  }),
  z.object({ ...eventBase, type: z.literal('interrupted'), reason: z.string() }),
  z.object({
    ...eventBase,
    type: z.literal('error'),
    message: z.string(),
    /** What kind of fix the host can offer (set a key, retry, open settings). */
    kind: z.enum([
      'authentication',
      'connection',
      'rate_limit',
      'server',
      'bad_request',
      'stream',
      'configuration',
      'internal',
    ]),
  }),
  z.object({ ...eventBase, type: z.literal('done'), stopReason: z.string() }),
]);

export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent['type'];
export type ErrorKind = Extract<AgentEvent, { type: 'error' }>['kind'];

/** An event before the conversation stamps it with ids, sequence and time. */
export type AgentEventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'conversationId' | 'agentId' | 'seq' | 'time'>
    : never
  : never;
