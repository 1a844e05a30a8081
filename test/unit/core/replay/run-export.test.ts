import assert from 'node:assert/strict';
import { loadRecording } from '../../../../src/core/replay/loaded-recording';
import { replayRun } from '../../../../src/core/replay/replay-run';
import { contentOf } from '../../../../src/core/replay/content-hash';
import { redactRun, refsNamedIn, RUN_EXPORT_FORMAT } from '../../../../src/core/replay/run-export';
import { checkRunExport, importRun, isImportedRun } from '../../../../src/core/replay/run-import';
import type { ContentRef, RunRecording } from '../../../../src/core/replay/recording';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { openStore, tempDir } from '../../store/store-helpers';
import { recordAndExport, UNKNOWN_SECRET, type RecordedExport } from './export-harness';

describe('export and import of a recorded run', function () {
  this.timeout(120_000);
  let run: RecordedExport;

  before(async () => {
    run = await recordAndExport();
  });

  it('exports the recording with exactly the content it reaches, and the messages', async () => {
    const { exported } = run;
    assert.equal(exported.format, RUN_EXPORT_FORMAT);
    assert.equal(exported.version, 1);
    assert.deepEqual(
      exported.recording.steps.map((step) => step.kind),
      ['prompt', 'model', 'tool', 'model', 'tool', 'model'],
    );
    const refs = new Set(exported.content.map((entry) => entry.ref));
    assert.equal(refs.size, exported.content.length, 'each piece once');
    for (const entry of exported.content) assert.equal(contentOf(entry.value).ref, entry.ref);
    // Exactly what the recording reaches: every ref it or its content names that the store has, no other.
    const opened = await openStore(run.directory);
    const named = new Set(refsNamedIn([exported.recording, ...exported.content.map((entry) => entry.value)]));
    for (const ref of named)
      if (await opened.store.recordings.hasContent(ref)) assert.ok(refs.has(ref), `${ref} is in the file`);
    for (const ref of refs) assert.ok(named.has(ref), `${ref} is named by the recording`);
    assert.equal(exported.messages?.length, (await opened.store.listMessages('c1')).length);
    await opened.store.close();
    assert.ok(run.text.includes(UNKNOWN_SECRET), 'a line nobody said was secret stays');
    assert.equal(run.redacted, 0);
  });

  it('imports into a fresh store as a new conversation marked imported, which replays to the same events', async () => {
    const checked = await checkRunExport(Buffer.from(run.text));
    const directory = tempDir();
    let opened = await openStore(directory);
    const conversation = await importRun(opened.store, checked, { id: 'imported-1', now: 9_000, file: 'run.json' });
    assert.equal(conversation.title.endsWith('(imported)'), true);
    await opened.store.close();
    // Read back from disk: what was imported is in the store's files, not only in memory.
    opened = await openStore(directory);
    const stored = (await opened.store.getConversation('imported-1'))!;
    assert.ok(isImportedRun(stored));
    assert.deepEqual(Object.keys(stored.settings), ['importedRun'], 'none of the original settings');
    assert.equal((await opened.store.listMessages('imported-1')).length, run.exported.messages!.length);
    const loaded = await loadRecording(opened.store.recordings, 'imported-1');
    assert.equal(loaded.recording.manifest.conversationId, 'imported-1');
    const workspace = new NodeWorkspace(run.root);
    const outcome = await replayRun(loaded, { currentTools: createFileTools(workspace), expectedEvents: run.events });
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
    assert.equal(outcome.stepsReplayed, outcome.lastStep);
    await opened.store.close();
  });

  it('redacts a secret held at export that the recording did not know, and the file still checks and replays', async () => {
    const secret = await recordAndExport({ knownSecrets: [UNKNOWN_SECRET] });
    assert.ok(secret.redacted > 0);
    assert.ok(!secret.text.includes(UNKNOWN_SECRET), 'the held secret is nowhere in the file');
    const checked = await checkRunExport(Buffer.from(secret.text));
    const outcome = await replayRun(checked.loaded, {
      currentTools: createFileTools(new NodeWorkspace(secret.root)),
    });
    // The file's text was redacted in the tool result and in every request that carried it alike.
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
  });

  it('gives every value redaction changes a new ref, and its parents and steps too', () => {
    const text = 'token sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
    const textRef = contentOf(text).ref;
    const message = { role: 'user', content: [{ type: 'text', text: { ref: textRef } }] };
    const messageRef = contentOf(message).ref;
    const recording = {
      manifest: { system: messageRef },
      steps: [{ kind: 'prompt', step: 1, text: messageRef }],
    } as unknown as RunRecording;
    const content = new Map<ContentRef, unknown>([
      [textRef, text],
      [messageRef, message],
    ]);
    const safe = redactRun(recording, content);
    assert.equal(safe.redacted, 1);
    for (const [ref, value] of safe.content) assert.equal(contentOf(value).ref, ref);
    assert.ok(!JSON.stringify([...safe.content.values()]).includes('sk-ant-'));
    const newMessage = (safe.recording.steps[0] as { text: ContentRef }).text;
    assert.notEqual(newMessage, messageRef);
    assert.ok(safe.content.has(newMessage));
    assert.equal(safe.recording.manifest.system, newMessage);
  });
});
