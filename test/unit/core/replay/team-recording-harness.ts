/**
 * A team run recorded by the product itself: a ConversationSession with teams on, recording into
 * a real sql.js store, its lead and teammates answered by the fake model server (the teammates
 * use their own model name, routed by the model policy, so no lead turn goes to a teammate), the
 * teammates reading real files. Two shapes:
 * - `inbox`: the lead starts alice and waits on read_inbox for her report, then answers;
 * - `pair`: the lead starts alice and bob, who each read a file and report; the next prompt's
 *   answer sees both reports in the lead's inbox.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentEvent } from '../../../../src/core/events/events';
import { loadRecording, type LoadedRecording } from '../../../../src/core/replay/loaded-recording';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../../../src/core/tools/tool';
import { FileTaskStorage } from '../../../../src/node/file-task-storage';
import { FileTeamStorage } from '../../../../src/node/file-team-storage';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { ScenarioTurnInput } from '../../../fixtures/fake-model-server/scenario';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { waitUntil } from '../../../harness/patience';
import { openStore, tempDir } from '../../store/store-helpers';
import { tempWorkspace } from '../session/fork-harness';
import { recordedSession } from './recording-harness';

const TEAMMATE_MODEL = 'teammate-model';

/**
 * The teammates' turns: each first call matches its own prompt; the later ones (after a tool
 * result there is no user text to match) are the same for every teammate, so which teammate the
 * server gives them to does not matter.
 */
function teammateTurns(files: string[]): ScenarioTurnInput[] {
  const reads = files.map((file, index) => ({
    model: TEAMMATE_MODEL,
    match: `read ${file}`,
    toolCalls: [{ id: `r${index}`, name: 'read_file', arguments: { path: file } }],
  }));
  const reports = files.map(() => ({
    model: TEAMMATE_MODEL,
    toolCalls: [{ id: 'm', name: 'send_message', arguments: { to: 'lead', text: 'My file says hello.' } }],
  }));
  const ends = files.map(() => ({ model: TEAMMATE_MODEL, text: 'Done.' }));
  return [...reads, ...reports, ...ends];
}

function spawn(name: string, file: string) {
  return {
    id: `spawn-${name}`,
    name: 'spawn_teammate',
    arguments: { name, role: 'reader', prompt: `Please read ${file} and tell the lead.` },
  };
}

export interface RecordedTeamRun {
  loaded: LoadedRecording;
  events: AgentEvent[];
  tools: () => AnyTool[];
  /** The teammates' model calls the server answered. */
  teammateCalls: number;
}

export async function recordTeamRun(shape: 'inbox' | 'pair'): Promise<RecordedTeamRun> {
  const lead = (turn: ScenarioTurnInput): ScenarioTurnInput => ({ model: 'fake-model', ...turn });
  const turns: ScenarioTurnInput[] =
    shape === 'inbox'
      ? [
          lead({ match: 'Get alice', toolCalls: [spawn('alice', 'a.txt')] }),
          lead({ toolCalls: [{ id: 'wait', name: 'read_inbox', arguments: { waitSeconds: 120 } }] }),
          lead({ text: 'Alice reported: a.txt says hello.' }),
          ...teammateTurns(['a.txt']),
        ]
      : [
          lead({ match: 'Get both', toolCalls: [spawn('alice', 'a.txt'), spawn('bob', 'b.txt')] }),
          lead({ match: '', text: 'Both are reading.' }),
          lead({ match: 'What did they say', text: 'Both files say hello.' }),
          ...teammateTurns(['a.txt', 'b.txt']),
        ];
  const server = await FakeModelServer.start({ scenario: { name: `team ${shape}`, turns } });
  const directory = tempDir();
  const root = tempWorkspace({ 'a.txt': 'hello from a\n', 'b.txt': 'hello from b\n' });
  const teams = tempDir();
  const workspace = new NodeWorkspace(root);
  const opened = await openStore(directory);
  const tools = (tracked?: unknown) => createFileTools((tracked as NodeWorkspace) ?? workspace);
  try {
    const recorded = recordedSession(server, opened.store, {
      workspace: () => workspace,
      workspaceRoot: () => root,
      tools,
      taskStorage: new FileTaskStorage(path.join(teams, 'tasks')),
      teamStorage: new FileTeamStorage(path.join(teams, 'teams')),
      modelPolicy: () => ({ routes: [{ match: { task: 'subagent' as const }, model: `anthropic/${TEAMMATE_MODEL}` }] }),
    });
    recorded.session.switches.setTeams(true);
    const done = (name: string) => (event: AgentEvent) =>
      event.type === 'tool_result' && event.agentId === name && event.toolName === 'send_message';
    const idle = (name: string) =>
      recorded.events.some(
        (event) => event.type === 'teammate_status' && event.name === name && event.status === 'idle',
      );
    if (shape === 'inbox') {
      await recorded.run('Get alice to read a.txt');
      await waitUntil(() => idle('alice'), 'alice to finish');
    } else {
      await recorded.run('Get both to read their files');
      await waitUntil(
        () => recorded.events.some(done('alice')) && recorded.events.some(done('bob')) && idle('alice') && idle('bob'),
        'alice and bob to report',
      );
      await recorded.run('What did they say?');
    }
    await recorded.session.flush();
    await recorded.session.dispose();
    const teammateCalls = server.modelCalls.filter((call) => JSON.stringify(call.body).includes(TEAMMATE_MODEL)).length;
    const loaded = await loadRecording(opened.store.recordings, 'c1');
    return { loaded, events: recorded.events, tools: () => tools(), teammateCalls };
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
