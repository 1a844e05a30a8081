/**
 * The typed protocol between the extension host and its webviews. A webview is untrusted
 * input: every message it sends is validated here on arrival, and anything malformed,
 * oversized or carrying unexpected keys is dropped. Names are noun_action.
 */
import { z } from 'zod';
import { agentEventSchema } from '../core/agent/events';

/** The longest prompt accepted from a webview (characters). */
export const MAX_PROMPT_CHARS = 200_000;

export const webviewActionSchema = z.enum(['set_api_key', 'open_settings', 'open_walkthrough', 'retry']);
export type WebviewAction = z.infer<typeof webviewActionSchema>;

/** Messages a webview sends to the host. Strict objects reject extra keys such as __proto__. */
export const webviewToHostSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('webview_ready') }),
  z.strictObject({
    type: z.literal('prompt_submit'),
    requestId: z.string().min(1).max(64),
    text: z.string().trim().min(1).max(MAX_PROMPT_CHARS),
  }),
  z.strictObject({ type: z.literal('run_stop') }),
  z.strictObject({ type: z.literal('chat_new') }),
  z.strictObject({ type: z.literal('action_invoke'), action: webviewActionSchema }),
  z.strictObject({ type: z.literal('link_open'), href: z.string().min(1).max(4096) }),
  z.strictObject({ type: z.literal('turn_revert'), turn: z.number().int().positive().max(1_000_000) }),
]);
export type WebviewToHost = z.infer<typeof webviewToHostSchema>;

/** Messages the host sends to a webview. */
export const hostToWebviewSchema = z.discriminatedUnion('type', [
  /** Events batched per frame: one post carries many deltas. */
  z.strictObject({ type: z.literal('agent_events'), events: z.array(agentEventSchema) }),
  z.strictObject({
    type: z.literal('chat_notice'),
    level: z.enum(['info', 'warning', 'error']),
    text: z.string(),
    actions: z.array(z.strictObject({ action: webviewActionSchema, label: z.string() })),
  }),
  z.strictObject({ type: z.literal('chat_reset') }),
]);
export type HostToWebview = z.infer<typeof hostToWebviewSchema>;

/** Validates a message from a webview; returns undefined for anything that does not fit. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  const result = webviewToHostSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}
