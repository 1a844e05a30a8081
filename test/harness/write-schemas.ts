/** `npm run schemas`: writes the JSON Schemas generated from the zod schemas into schemas/. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentPolicyJsonSchema } from '../../src/core/policy/agent-policy';

export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', 'schemas', 'agent-policy.schema.json');

export function schemaText(): string {
  return `${JSON.stringify(agentPolicyJsonSchema(), null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(SCHEMA_FILE, schemaText());
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`);
}
