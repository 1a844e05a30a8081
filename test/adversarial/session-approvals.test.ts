/**
 * Issue 33, hostile: approvals of many sessions at once. A window's registry of 50 real sessions
 * on the fake model server, each in its own folder with the real notification gate (its `vscode`
 * the notification double), each asking to write a file at the same time. Every session's Show
 * Session shows its own question again, naming it; answers race on the twins; one session is
 * removed while its question waits. Each file is written once or not at all, every run ends,
 * nothing hangs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConversationSession } from '../../src/core/session/conversation-session';
import { MAX_SESSIONS, SessionRegistry } from '../../src/core/session/session-registry';
import type { WorkPlace } from '../../src/core/session/work-place';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { NotificationApprovalGate } from '../../src/host/approvals/notification-approval-gate';
import { withPendingApprovals } from '../../src/host/sessions/pending-approvals';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { sessionOn } from '../unit/core/session/session-harness';
import { gateWith, NotificationDouble, type Shown } from '../unit/host/approvals/notification-double';

const SHOW = 'openagent.showSession';
const APPROVE = 'Approve';
const DENY = 'Deny';

interface Composed {
  root: string;
  gate: NotificationApprovalGate;
  harness: ReturnType<typeof sessionOn>;
}

describe('adversarial: approvals of many sessions at once (issue 33)', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('50 waiting sessions: each shown again names itself, answers race, a removed one stops, nothing hangs', async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-session-approvals-')));
    // The model asks to write the file the prompt names, then says it is done.
    const server = await FakeModelServer.start({
      respond: (conversation) => {
        if (conversation.entries.some((entry) => entry.kind === 'tool_result')) return { text: 'Done.' };
        const prompt = conversation.entries.find((entry) => entry.kind === 'prompt');
        const tag = /session-\d+/.exec(prompt?.kind === 'prompt' ? prompt.text : '')?.[0] ?? 'none';
        return {
          toolCalls: [{ id: `w-${tag}`, name: 'write_file', arguments: { path: 'notes.md', content: `${tag}\n` } }],
        };
      },
    });
    const double = new NotificationDouble();
    const composed = new Map<ConversationSession, Composed>();
    const compose = (place: WorkPlace, name: string): ConversationSession => {
      const root = fs.mkdtempSync(path.join(base, 'place-'));
      const workspace = new NodeWorkspace(root);
      const gate = gateWith(double, { sessionName: name, resurfaceAfterMs: 0 });
      const harness = sessionOn(server, {
        approvals: gate,
        workspaceRoot: () => root,
        workspace: () => workspace,
        tools: (files) => createFileTools(files!),
      });
      composed.set(harness.session, { root, gate, harness });
      return harness.session;
    };
    const here = compose({ kind: 'workspace', root: base }, 'Workspace');
    let ids = 0;
    const registry = new SessionRegistry(
      { compose, workspace: base, exists: async () => true, newId: () => `id-${++ids}` },
      { session: here, root: base },
    );
    // A hostile name among them: a bidi override and a newline must not forge the question's text.
    const names = Array.from({ length: MAX_SESSIONS - 1 }, (_, index) =>
      index === 3 ? 'evil\u202Eexe.\nApprove all' : `Try ${index + 1}`,
    );
    for (const name of names) registry.create(name, { kind: 'workspace', root: base });
    const entries = registry.list().map((view) => registry.get(view.id)!);
    assert.equal(entries.length, 50);
    const commands = withPendingApprovals(
      { [SHOW]: (id?: string) => id && registry.show(id) },
      SHOW,
      registry,
      (session) => composed.get(session)?.gate,
    );
    const show = commands[SHOW] as (id: string) => Promise<unknown>;

    try {
      // Every session asks at once.
      entries.forEach((entry, index) => void entry.session.submit(`write session-${index}`));
      await double.until(50);
      while (registry.counts().waiting < 50) await new Promise((resolve) => setTimeout(resolve, 10));
      // Each session's first notification and the one shown again, by session.
      const questions = new Map<string, { original: Shown; twin: Shown }>();

      // The user shows each session in turn: its question, and only its, comes back.
      for (const [index, entry] of entries.entries()) {
        const before = double.shown.length;
        await show(entry.id);
        assert.equal(double.shown.length, before + 1, `session ${index}: one question shown again`);
        const again = double.shown.at(-1)!;
        const original = double.shown.find((shown) => shown.text === again.text);
        assert.ok(original && original !== again, `session ${index}: the same question as before`);
        questions.set(entry.id, { original, twin: again });
        if (index > 0) assert.match(again.text, new RegExp(`session “${index === 4 ? 'evil' : `Try ${index}`}`));
        assert.doesNotMatch(again.text, /[\u202E\n]/);
      }
      assert.equal(double.shown.length, 100);

      // Session 7 is removed while its question waits: its run stops, the removal does not hang.
      const removed = entries[7]!;
      const removedParts = composed.get(removed.session)!;
      await registry.remove(removed.id);
      assert.equal(removedParts.gate.pendingCount, 0);
      assert.equal(removedParts.gate.resurface(), 0);

      // Answers race: Approve then Deny on even sessions' twins, Deny first on odd ones.
      for (const [index, entry] of entries.entries()) {
        const { original, twin } = questions.get(entry.id)!;
        if (index % 2 === 0) {
          twin.answer(APPROVE);
          original.answer(DENY);
        } else {
          original.answer(DENY);
          twin.answer(APPROVE);
        }
      }
      // Every run that was not stopped ends.
      for (const [index, entry] of entries.entries()) {
        if (entry === removed) continue;
        await composed.get(entry.session)!.harness.waitDone(1);
        assert.equal(composed.get(entry.session)!.gate.pendingCount, 0, `session ${index}`);
      }
      for (const [index, entry] of entries.entries()) {
        const { root, harness } = composed.get(entry.session)!;
        const file = path.join(root, 'notes.md');
        const results = harness.events.filter((event) => event.type === 'tool_approval_result');
        if (entry === removed) {
          assert.equal(fs.existsSync(file), false, 'the removed session wrote nothing');
          continue;
        }
        assert.equal(results.length, 1, `session ${index}: one decision`);
        if (index % 2 === 0) assert.equal(fs.readFileSync(file, 'utf8'), `session-${index}\n`);
        else assert.equal(fs.existsSync(file), false, `session ${index}: denied, nothing written`);
      }
      assert.equal(registry.counts().waiting, 0);
      assert.equal(double.shown.length, 100, 'no question was asked twice after its answer');
    } finally {
      await registry.dispose();
      // Every session composed has ended (a second dispose is harmless).
      await Promise.all([...composed.keys()].map((session) => session.dispose()));
      await server.close();
    }
  });
});
