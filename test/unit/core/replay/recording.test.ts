import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import type { LlmStreamPart } from '../../../../src/core/llm/llm-client';
import { joinRequest, joinToolResult } from '../../../../src/core/replay/recorded-request';
import type {
  ModelStep,
  RecordedAnswer,
  RecordedStep,
  RunRecording,
  ToolStep,
} from '../../../../src/core/replay/recording';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { waitUntil } from '../../../harness/patience';
import { slowTool } from '../agent/loop-harness';
import { tempWorkspace } from '../session/fork-harness';
import { recordedSession, storeBytes, recordedRunScenario } from './recording-harness';

const API_KEY = 'sk-ant-api03-RECORDINGTESTKEY0123456789abcdef';
const HELD = 'correct-horse-battery-staple-42';

/** What a step is, in a word a test can compare. */
function describeStep(step: RecordedStep): string {
  switch (step.kind) {
    case 'prompt':
      return `prompt${step.redirect ? ' (redirect)' : ''}`;
    case 'interrupt':
      return `interrupt during ${step.during}`;
    case 'model':
      return `model ${step.agentId}${step.error ? ` failed ${step.error.status}` : ''}`;
    case 'tool':
      return `tool ${step.agentId} ${step.toolName} ${step.decision ? (step.decision.approved ? 'approved' : 'denied') : 'undecided'}${step.result ? '' : ' (no result)'}`;
  }
}

describe('recording runs for replay', () => {
  it('records a run whole: prompts, every model attempt, approved and denied tools, a sub-agent, an interrupt', async () => {
    const server = await FakeModelServer.start({ scenario: recordedRunScenario('secret.txt') });
    const directory = tempDir();
    const root = tempWorkspace({ 'secret.txt': `ANTHROPIC_API_KEY=${API_KEY}\npassphrase ${HELD}\n` });
    const workspace = new NodeWorkspace(root);
    try {
      const opened = await openStore(directory);
      const recorded = recordedSession(server, opened.store, {
        secrets: { getApiKey: async () => API_KEY },
        workspace: () => workspace,
        workspaceRoot: () => root,
        tools: (tracked) => [...createFileTools(tracked ?? workspace), slowTool],
        approvals: {
          request: async (request) =>
            JSON.stringify(request).includes('no.txt')
              ? { approved: false, source: 'user', reason: 'not that file' }
              : { approved: true, source: 'user' },
        },
      });
      recorded.session.heldSecrets.add(HELD);
      await recorded.run(`Read secret.txt (my key is ${API_KEY}, the phrase ${HELD}).`);

      // The second run is stopped while its tool runs.
      const started = recorded.events.length;
      await recorded.session.submit('Now the slow part.');
      await waitUntil(
        () => recorded.events.slice(started).some((event) => event.type === 'tool_call'),
        'the run to get there',
      );
      recorded.session.stop();
      await waitUntil(
        () => recorded.events.slice(started).some((event) => event.type === 'interrupted'),
        'the run to get there',
      );
      await recorded.session.flush();

      const recording = await opened.store.recordings.getRecording('c1');
      assert.ok(recording, 'the conversation has a recording');
      assert.deepEqual(recording.steps.map(describeStep), [
        'prompt',
        'model lead failed 500',
        'model lead',
        'tool lead read_file undecided',
        'model lead',
        'tool lead write_file approved',
        'model lead',
        'tool lead write_file denied',
        'model lead',
        'tool lead task undecided',
        'model sub-' + subagentNumber(recorded.events),
        'model lead',
        'prompt',
        'model lead',
        'tool lead slow_tool undecided (no result)',
        'interrupt during 15',
      ]);
      assert.deepEqual(
        recording.steps.map((step) => step.step),
        recording.steps.map((_step, index) => index + 1),
        'numbered from 1 in order',
      );
      assert.equal(recording.unfinished, undefined, 'both runs ended');

      // The manifest: what the run depended on.
      const { manifest } = recording;
      assert.equal(manifest.conversationId, 'c1');
      assert.equal(manifest.product, '0.1.0-test');
      assert.deepEqual(manifest.place, { kind: 'workspace', root, commit: 'abc123', branch: 'main' });
      assert.deepEqual(
        manifest.models.find((model) => model.work === 'chat'),
        {
          work: 'chat',
          provider: 'anthropic',
          model: 'fake-model',
        },
      );
      assert.equal(await opened.store.recordings.getContent(manifest.system), 'sys');
      assert.ok(manifest.tools.some((tool) => tool.name === 'write_file'));
      const schema = (await opened.store.recordings.getContent(manifest.tools[0]!.schema)) as { name: string };
      assert.equal(schema.name, manifest.tools[0]!.name);

      // A model step: the request as sent, whole again, and the answer's parts in order.
      const call = recording.steps[2] as ModelStep;
      const request = await joinRequest(call.request, (ref) => opened.store.recordings.getContent(ref));
      assert.equal(request.system, 'sys');
      assert.equal(request.model, 'fake-model');
      assert.deepEqual(
        request.messages.map((message) => message.role),
        ['user'],
      );
      assert.deepEqual(
        request.tools.map((tool) => tool.name),
        manifest.tools.map((tool) => tool.name),
      );
      const answer = (await opened.store.recordings.getContent(call.answer)) as RecordedAnswer;
      const text = answer.parts.flatMap((part: LlmStreamPart) => (part.type === 'text_delta' ? [part.text] : []));
      // As the loop received it: deltas that arrived together are one part (coalesce-text.ts).
      assert.equal(text.join(''), 'Let me read it.');
      const kinds = answer.parts.map((part: LlmStreamPart) => part.type);
      assert.ok(
        kinds.indexOf('text_delta') < kinds.indexOf('tool_call') &&
          kinds.indexOf('tool_call') < kinds.indexOf('finish'),
        `the parts in the order they came: ${kinds.join(', ')}`,
      );
      assert.equal(call.stopReason, 'tool_use');
      // The failed attempt sent the same request.
      assert.equal((recording.steps[1] as ModelStep).request, call.request);

      // Tool steps: input, decision, result as the model got it, files changed.
      const approved = recording.steps[5] as ToolStep;
      assert.deepEqual(await opened.store.recordings.getContent(approved.input), { path: 'ok.txt', content: 'fine\n' });
      assert.deepEqual(approved.decision, { approved: true, source: 'user' });
      assert.deepEqual(approved.files, [{ path: 'ok.txt', checkpointId: 'turn-1' }]);
      const denied = recording.steps[7] as ToolStep;
      assert.deepEqual(denied.decision, { approved: false, source: 'user', reason: 'not that file' });
      const deniedResult = (await opened.store.recordings.getContent(denied.result!)) as { isError: boolean };
      assert.equal(deniedResult.isError, true);
      assert.equal(denied.files, undefined);

      // Secrets never reach the store, in any file, in any form kept there.
      await opened.store.close();
      const bytes = storeBytes(directory);
      assert.ok(!bytes.includes(API_KEY), 'the API key is not in the store');
      assert.ok(!bytes.includes(HELD), 'the held secret is not in the store');
      assert.ok(bytes.includes('[REDACTED]'), 'what was there is marked');

      // Reopened (snapshot + journal replay): the same recording.
      const reopened = await openStore(directory);
      const again = await reopened.store.recordings.getRecording('c1');
      assert.deepEqual(again, recording);
      await reopened.store.close();
    } finally {
      await server.close();
    }
  });

  it('keeps a file read many times once, and deleting the conversation removes its content', async () => {
    const file = `${'const value = 1; // fifty kilobytes of code\n'.repeat(1_200)}`;
    const reads = 20;
    const server = await FakeModelServer.start({
      scenario: {
        name: 'dedup',
        turns: [
          ...Array.from({ length: reads }, (_unused, index) => ({
            toolCalls: [{ id: `r${index}`, name: 'read_file', arguments: { path: 'big.ts', limit: 10_000 } }],
          })),
          { text: 'Read it often enough.' },
        ],
      },
    });
    const directory = tempDir();
    const root = tempWorkspace({ 'big.ts': file });
    const workspace = new NodeWorkspace(root);
    try {
      const opened = await openStore(directory);
      const recorded = recordedSession(server, opened.store, {
        workspace: () => workspace,
        workspaceRoot: () => root,
        tools: (tracked) => createFileTools(tracked ?? workspace),
        readLimits: () => ({ maxToolOutputChars: 200_000, maxTurns: 100, contextWindow: 10_000_000 }),
      });
      await recorded.run('Read big.ts again and again.');
      const recording = (await opened.store.recordings.getRecording('c1')) as RunRecording;
      const tools = recording.steps.filter((step): step is ToolStep => step.kind === 'tool');
      assert.equal(tools.length, reads);
      assert.equal(new Set(tools.map((step) => step.result)).size, 1, 'the same result, one ref');
      // Read 20 times and sent back in 20 requests (210 copies in all): its pieces are kept once.
      const asRead = (await opened.store.recordings.getContent(tools[0]!.result!)) as { output: unknown };
      const whole = await joinToolResult(tools[0]!.result!, (ref) => opened.store.recordings.getContent(ref));
      assert.match(whole!.output, /^ {3}1\tconst value = 1;/);
      assert.ok(typeof asRead.output === 'object', 'a long output is kept by ref');
      const pieces = await opened.store.recordings.contentBytes('fifty kilobytes of code');
      assert.ok(
        pieces.bytes < whole!.output.length * 1.1,
        `the file's text is kept in ${pieces.bytes} bytes, ${whole!.output.length} as read`,
      );
      const all = await opened.store.recordings.contentBytes();
      assert.ok(all.bytes < whole!.output.length * 3, `everything kept: ${all.bytes} bytes`);

      await recorded.session.deleteConversation('c1');
      assert.equal(await opened.store.recordings.getRecording('c1'), undefined);
      assert.deepEqual(await opened.store.recordings.contentBytes(), { count: 0, bytes: 0 });
      await opened.store.close();
    } finally {
      await server.close();
    }
  });

  it('says a conversation recorded before recording existed has none, and a run cut off is unfinished', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'cut',
        turns: [
          { text: 'Working on it, slowly.', delayMs: 200, chunkSize: 2 },
          { text: 'Working on it, slowly.', delayMs: 200, chunkSize: 2 },
        ],
      },
    });
    const directory = tempDir();
    try {
      const opened = await openStore(directory);
      // Before this version: the conversation is stored, nothing is recorded for replay.
      const older = recordedSession(server, opened.store, { recording: undefined, newId: () => 'old' });
      await older.session.submit('hello');
      await waitUntil(() => older.events.some((event) => event.type === 'text_delta'), 'the run to get there');
      older.session.stop();
      await waitUntil(() => older.events.some((event) => event.type === 'interrupted'), 'the run to get there');
      await older.session.flush();
      assert.ok(await opened.store.getConversation('old'));
      assert.equal(await opened.store.recordings.getRecording('old'), undefined);

      // A run whose window closed mid-answer: what was written says it never finished.
      const cut = recordedSession(server, opened.store, { newId: () => 'cut' });
      await cut.session.submit('hello');
      await waitUntil(() => cut.events.some((event) => event.type === 'text_delta'), 'the run to get there');
      await cut.session.flush();
      await opened.store.close();
      const reopened = await openStore(directory);
      const recording = await reopened.store.recordings.getRecording('cut');
      assert.equal(recording?.unfinished, true);
      assert.deepEqual(recording?.steps.map(describeStep), ['prompt']);
      await reopened.store.close();
      cut.session.stop();
      await cut.session.dispose();
    } finally {
      await server.close();
    }
  });
});

function subagentNumber(events: readonly AgentEvent[]): string {
  const start = events.find((event) => event.type === 'subagent_start');
  return start?.type === 'subagent_start' ? start.subagentId.replace(/^sub-/, '') : '?';
}
