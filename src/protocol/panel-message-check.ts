/**
 * What the developer panel checks the host's messages with: its event batches by one generated
 * parser, every other message by another (each generated from the protocol's zod schemas,
 * src/protocol/codegen/host-message-entries.ts), chosen by the message's `type`. Agrees with
 * `hostToPanelSchema.safeParse` (a unit test fuzzes both).
 */
import type { HostToPanel } from './messages';
import { parsePanelEvents } from './generated/panel-events-parser';
import { parsePanelMessage } from './generated/panel-message-parser';

/** The message (a copy) when it fits the panel's protocol, else undefined. */
export function parseHostToPanel(raw: unknown): HostToPanel | undefined {
  const isEvents =
    typeof raw === 'object' &&
    raw !== null &&
    !Array.isArray(raw) &&
    (raw as { type?: unknown }).type === 'agent_events';
  return isEvents ? parsePanelEvents(raw) : parsePanelMessage(raw);
}
