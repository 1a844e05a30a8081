/**
 * `npm run schemas`: writes what is generated from the zod schemas — the JSON Schemas into
 * schemas/, and the webviews' parsers of host messages into src/protocol/generated/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentPolicyJsonSchema } from '../../src/core/policy/agent-policy';
import { GENERATED_PARSERS_DIR, hostMessageParserFiles } from '../../src/protocol/codegen/host-message-parsers';

export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', 'schemas', 'agent-policy.schema.json');

export function schemaText(): string {
  return `${JSON.stringify(agentPolicyJsonSchema(), null, 2)}\n`;
}

async function main(): Promise<void> {
  const parsers = await hostMessageParserFiles();
  // The folder holds only what is generated now: a module no longer generated goes.
  for (const name of fs.readdirSync(GENERATED_PARSERS_DIR))
    if (!parsers.some(({ file }) => path.basename(file) === name)) fs.rmSync(path.join(GENERATED_PARSERS_DIR, name));
  fs.writeFileSync(SCHEMA_FILE, schemaText());
  for (const { file, source } of parsers) fs.writeFileSync(file, source);
  for (const file of [SCHEMA_FILE, ...parsers.map(({ file }) => file)])
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

if (require.main === module) void main();
