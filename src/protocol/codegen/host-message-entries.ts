/**
 * The host messages the webviews parse, and with which of the protocol's zod schemas: the chat
 * its updates, the developer panel all it gets. Free of Node, so a benchmark can bundle these
 * schemas for a browser the way each way of checking them would.
 */
import { z } from 'zod';
import { hostToPanelSchema, hostToWebviewSchema } from '../messages';
import type { ParserEntry } from './parser-codegen';

/**
 * The chat checks event batches by their envelope (checking thousands of replayed events one by
 * one costs a long conversation's reopening dearly, and the host built them from the same
 * types); every other message it gets is parsed whole.
 */
const [firstUpdate, ...otherUpdates] = hostToWebviewSchema.options.filter(
  (option) => option.shape.type.value !== 'agent_events',
);
export const chatUpdateSchema = z.discriminatedUnion('type', [firstUpdate!, ...otherUpdates]);

/**
 * The panel's messages in two parts: its event batches (every event's schema, the larger half)
 * and the rest; src/protocol/panel-message-check.ts dispatches on `type`.
 */
const [panelEvents, ...panelOthers] = [...hostToPanelSchema.options].sort(
  (a, b) => Number(b.shape.type.value === 'agent_events') - Number(a.shape.type.value === 'agent_events'),
);
export const panelEventsSchema = panelEvents!;
const [firstPanelOther, ...morePanelOthers] = panelOthers;
export const panelMessageSchema = z.discriminatedUnion('type', [firstPanelOther!, ...morePanelOthers]);

/** Each webview's parsers in modules of their own (src/protocol/generated/<file>): each bundles only its own. */
export const HOST_MESSAGE_PARSERS: Array<ParserEntry & { file: string }> = [
  { name: 'ChatUpdate', schema: chatUpdateSchema, typeName: 'ChatUpdate', file: 'chat-update-parser.ts' },
  { name: 'PanelEvents', schema: panelEventsSchema, typeName: 'PanelEvents', file: 'panel-events-parser.ts' },
  { name: 'PanelMessage', schema: panelMessageSchema, typeName: 'PanelMessage', file: 'panel-message-parser.ts' },
];
