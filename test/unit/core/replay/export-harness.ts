/**
 * A run recorded for real (recordedSession: a ConversationSession on the fake model server,
 * writing to a sql.js store with recording on), exported with buildRunExport: what the export
 * and import tests start from.
 */
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import type { AgentEvent } from '../../../../src/core/events/events';
import { buildRunExport, runExportText, type RunExport } from '../../../../src/core/replay/run-export';
import type { KnownSecrets } from '../../../../src/core/llm/redact';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { tempWorkspace } from '../session/fork-harness';
import { recordedSession } from './recording-harness';

/** A line of a.txt the recorder did not know to be secret (a test may hold it at export). */
export const UNKNOWN_SECRET = 'plum-tarragon-9271-quokka';

export interface RecordedExport {
  /** The store folder the run was recorded in (closed). */
  directory: string;
  conversationId: string;
  events: AgentEvent[];
  exported: RunExport;
  redacted: number;
  text: string;
  root: string;
}

/** Reads a.txt (long, once with a line of UNKNOWN_SECRET), writes ok.txt (approved), answers. */
export async function recordAndExport(options: { knownSecrets?: KnownSecrets } = {}): Promise<RecordedExport> {
  const server = await FakeModelServer.start({
    scenario: {
      name: 'export',
      turns: [
        { text: 'Let me read it.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'ok.txt', content: 'fine\n' } }] },
        { text: 'Wrote ok.txt.' },
      ],
    },
  });
  try {
    const directory = tempDir();
    const root = tempWorkspace({ 'a.txt': `${'hello\n'.repeat(1000)}${UNKNOWN_SECRET}\n${'bye\n'.repeat(500)}` });
    const workspace = new NodeWorkspace(root);
    const opened = await openStore(directory);
    const recorded = recordedSession(server, opened.store, {
      workspace: () => workspace,
      workspaceRoot: () => root,
      tools: (tracked?: unknown) => createFileTools((tracked as NodeWorkspace) ?? workspace),
      approvals: { request: async () => ({ approved: true, source: 'user' }) },
    });
    await recorded.run('Read a.txt and write ok.txt');
    const conversation = (await opened.store.getConversation('c1'))!;
    const { exported, redacted } = await buildRunExport(
      {
        recordings: opened.store.recordings,
        conversation,
        messages: await opened.store.listMessages('c1'),
      },
      { product: '0.1.0-test', now: 5_000, ...(options.knownSecrets ? { knownSecrets: options.knownSecrets } : {}) },
    );
    await recorded.session.dispose?.();
    await opened.store.close();
    return {
      directory,
      conversationId: 'c1',
      events: recorded.events,
      exported,
      redacted,
      text: runExportText(exported),
      root,
    };
  } finally {
    await server.close();
  }
}
