/** Finding things for the replay commands: a conversation by the start of its id, the sql.js engine. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConversationStore } from '../core/ports';
import { RecordingProblem } from '../core/replay/loaded-recording';

/** An id as given, or the one conversation whose id starts with it. */
export async function resolveConversationId(store: ConversationStore, name: string): Promise<string> {
  if (await store.getConversation(name)) return name;
  if (name.length < 4) return name;
  const matches = (await store.listConversations({ limit: 10_000 })).filter((conversation) =>
    conversation.id.startsWith(name),
  );
  if (matches.length > 1)
    throw new RecordingProblem(`"${name.slice(0, 40)}" names ${matches.length} conversations: give more of the id.`);
  return matches[0]?.id ?? name;
}

export function sqlWasmPath(): string {
  const candidates = [
    path.join(__dirname, 'sql-wasm.wasm'),
    path.join(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'),
  ];
  return candidates.find((candidate) => fs.existsSync(candidate)) ?? candidates[0]!;
}
