/**
 * What the webviews check the host's messages with: parsers generated from the protocol's zod
 * schemas (src/protocol/messages.ts stays the one source), written to
 * src/protocol/generated/host-message-parsers.ts by `npm run schemas`. A unit test fails when
 * the file is stale, and another proves each parser agrees with its schema.
 */
import * as path from 'node:path';
import * as prettier from 'prettier';
import { HOST_MESSAGE_PARSERS } from './host-message-entries';
import { generateParserModule } from './parser-codegen';

export const HOST_MESSAGE_PARSERS_FILE = path.resolve(__dirname, '..', 'generated', 'host-message-parsers.ts');

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
