/**
 * What the webviews check the host's messages with: parsers generated from the protocol's zod
 * schemas (src/protocol/messages.ts stays the one source), written to
 * src/protocol/generated/host-message-parsers.ts by `npm run schemas`. A unit test fails when
 * the file is stale, and another proves each parser agrees with its schema.
 */
import * as path from 'node:path';
import * as prettier from 'prettier';
import { z } from 'zod';
import { hostToPanelSchema, hostToWebviewSchema } from '../messages';
import { generateParserModule, type ParserEntry } from './parser-codegen';

export const HOST_MESSAGE_PARSERS_FILE = path.resolve(__dirname, '..', 'generated', 'host-message-parsers.ts');

/**
 * The chat checks event batches by their envelope (checking thousands of replayed events one by
 * one costs a long conversation's reopening dearly, and the host built them from the same
 * types); every other message it gets is parsed whole.
 */
const [firstUpdate, ...otherUpdates] = hostToWebviewSchema.options.filter(
  (option) => option.shape.type.value !== 'agent_events',
);
const chatUpdateSchema = z.discriminatedUnion('type', [firstUpdate!, ...otherUpdates]);

export const HOST_MESSAGE_PARSERS: ParserEntry[] = [
  { name: 'ChatUpdate', schema: chatUpdateSchema, typeName: 'ChatUpdate' },
  { name: 'HostToPanel', schema: hostToPanelSchema, typeName: 'HostToPanel' },
];

/** The generated module, formatted as the repository formats TypeScript. */
export async function hostMessageParsersSource(): Promise<string> {
  const source = generateParserModule({
    typesFrom: '../messages',
    runtimeFrom: '../parser-runtime',
    command: 'npm run schemas',
    entries: HOST_MESSAGE_PARSERS,
  });
  const options = await prettier.resolveConfig(HOST_MESSAGE_PARSERS_FILE);
  return prettier.format(source, { ...options, filepath: HOST_MESSAGE_PARSERS_FILE });
}
