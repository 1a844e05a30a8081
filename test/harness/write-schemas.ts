/**
 * `npm run schemas`: writes what is generated from the zod schemas — the JSON Schemas into
 * schemas/, and the webviews' parsers of host messages into src/protocol/generated/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentPolicyJsonSchema } from '../../src/core/policy/agent-policy';
import { HOST_MESSAGE_PARSERS_FILE, hostMessageParsersSource } from '../../src/protocol/codegen/host-message-parsers';

export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', 'schemas', 'agent-policy.schema.json');

export function schemaText(): string {
  return `${JSON.stringify(agentPolicyJsonSchema(), null, 2)}\n`;
}

async function main(): Promise<void> {
  fs.writeFileSync(SCHEMA_FILE, schemaText());
  fs.writeFileSync(HOST_MESSAGE_PARSERS_FILE, await hostMessageParsersSource());
  for (const file of [SCHEMA_FILE, HOST_MESSAGE_PARSERS_FILE])
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

if (require.main === module) void main();
