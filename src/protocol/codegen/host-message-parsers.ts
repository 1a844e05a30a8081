/**
 * What the webviews check the host's messages with: parsers generated from the protocol's zod
 * schemas (src/protocol/messages.ts stays the one source), written to
 * src/protocol/generated/ (a module per webview) by `npm run schemas`. A unit test fails when
 * the file is stale, and another proves each parser agrees with its schema.
 */
import * as path from 'node:path';
import * as prettier from 'prettier';
import { HOST_MESSAGE_PARSERS } from './host-message-entries';
import { generateParserModule } from './parser-codegen';

export const GENERATED_PARSERS_DIR = path.resolve(__dirname, '..', 'generated');

/** The generated modules (absolute file, source), formatted as the repository formats TypeScript. */
export async function hostMessageParserFiles(): Promise<Array<{ file: string; source: string }>> {
  return Promise.all(
    HOST_MESSAGE_PARSERS.map(async (entry) => {
      const file = path.join(GENERATED_PARSERS_DIR, entry.file);
      const source = generateParserModule({
        typesFrom: '../messages',
        runtimeFrom: '../parser-runtime',
        command: 'npm run schemas',
        entries: [entry],
      });
      const options = await prettier.resolveConfig(file);
      return { file, source: await prettier.format(source, { ...options, filepath: file }) };
    }),
  );
}
