/**
 * Issue 33: a waiting session's approval comes back when the user shows the session. The real
 * NotificationApprovalGate on the notification double: a question shown again is the same
 * question (the first answer wins, the other notification does nothing), a twin closed with its ×
 * does not deny while the other still asks, an answer given while "Show Details" is open is not
 * lost, and a stopped run ends its questions.
 */
import assert from 'node:assert/strict';
import type { ApprovalDecision } from '../../../../src/core/policy/approval';
import type { ConversationSession } from '../../../../src/core/session/conversation-session';
import type { WorkPlace } from '../../../../src/core/session/work-place';
import { withPendingApprovals } from '../../../../src/host/sessions/pending-approvals';
import { gateWith, NotificationDouble, writeRequest } from './notification-double';

const APPROVE = 'Approve';
const DENY = 'Deny';
const DETAILS = 'Show Details';
const PLACE: WorkPlace = { kind: 'workspace', root: '/work' };

/** Whether a promise has settled, after letting pending callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('approvals shown again when their session is shown (issue 33)', () => {
  it('shows a waiting question again, naming its session; answering the fresh one decides', async () => {
    const double = new NotificationDouble();
    const gate = gateWith(double, { sessionName: 'Fix login', resurfaceAfterMs: 0 });
    const decision = gate.request(writeRequest('w1'));
    await double.until(1);
    assert.equal(gate.pendingCount, 1);
    assert.equal(gate.resurface(), 1);
    await double.until(2);
    const [first, again] = double.shown;
    assert.equal(again!.text, first!.text, 'the same question');
    assert.match(again!.text, /session “Fix login”/);
    assert.deepEqual(again!.buttons, first!.buttons);

    again!.answer(APPROVE);
    assert.deepEqual(await decision, { approved: true, source: 'user' });
    assert.equal(gate.pendingCount, 0);
    // The first notification, clicked later, does nothing: no question waits, none is shown.
    first!.answer(DENY);
    assert.equal(await settled(Promise.resolve()), true);
    assert.equal(gate.resurface(), 0);
    assert.equal(double.shown.length, 2);
  });

  it('the first answer wins: Deny on the original after Approve on the twin changes nothing', async () => {
    const double = new NotificationDouble();
    const gate = gateWith(double, { resurfaceAfterMs: 0 });
    const decision = gate.request(writeRequest('w1'));
    await double.until(1);
    gate.resurface();
    await double.until(2);
    double.shown[1]!.answer(APPROVE);
    double.shown[0]!.answer(DENY);
    assert.equal((await decision).approved, true);
  });

  it('two answers in the same instant: exactly one decision, the one given first', async () => {
    for (const [firstChoice, secondChoice] of [
      [DENY, APPROVE],
      [APPROVE, DENY],
    ] as const) {
      const double = new NotificationDouble();
      const gate = gateWith(double, { resurfaceAfterMs: 0 });
      const decisions: ApprovalDecision[] = [];
      const decision = gate.request(writeRequest('w1')).then((made) => {
        decisions.push(made);
        return made;
      });
      await double.until(1);
      gate.resurface();
      gate.resurface();
      await double.until(3);
      // All three notifications answered in one synchronous burst.
      double.shown[2]!.answer(firstChoice);
      double.shown[0]!.answer(secondChoice);
      double.shown[1]!.answer(secondChoice);
      assert.equal((await decision).approved, firstChoice === APPROVE);
      await settled(Promise.resolve());
      assert.equal(decisions.length, 1);
      // The call cannot be asked about again (an approval is never replayed).
      const replay = await gate.request(writeRequest('w1'));
      assert.equal(replay.approved, false);
      assert.match(replay.reason ?? '', /already answered/);
    }
  });

  it('closing one of two notifications (×) does not deny: the other still asks; closing the last does', async () => {
    const double = new NotificationDouble();
    const gate = gateWith(double, { resurfaceAfterMs: 0 });
    const decision = gate.request(writeRequest('w1'));
    await double.until(1);
    gate.resurface();
    await double.until(2);
    double.shown[0]!.answer(undefined);
    assert.equal(await settled(decision), false, 'still waiting for the twin');
    assert.equal(gate.pendingCount, 1);
    double.shown[1]!.answer(undefined);
    assert.deepEqual(await decision, { approved: false, source: 'user' });
  });

  it('an answer on the twin while "Show Details" is open is kept for the question, not lost', async () => {
    const double = new NotificationDouble();
    let closeDetails!: () => void;
    const detailsOpen = new Promise<void>((resolve) => (closeDetails = resolve));
    let detailsShown = 0;
    const gate = gateWith(double, {
      resurfaceAfterMs: 0,
      showDetails: async () => {
        detailsShown++;
        await detailsOpen;
      },
    });
    const decision = gate.request(writeRequest('w1'));
    await double.until(1);
    gate.resurface();
    await double.until(2);
    double.shown[0]!.answer(DETAILS);
    await settled(Promise.resolve());
    assert.equal(detailsShown, 1);
    double.shown[1]!.answer(APPROVE);
    closeDetails();
    assert.deepEqual(await decision, { approved: true, source: 'user' });
    assert.equal(double.shown.length, 2, 'answered already: no new notification after the details');
  });

  it('a stopped run ends its question: the request rejects, nothing waits, a late click does nothing', async () => {
    const double = new NotificationDouble();
    const gate = gateWith(double, { resurfaceAfterMs: 0 });
    const request = writeRequest('w1');
    const decision = gate.request(request);
    await double.until(1);
    gate.resurface();
    await double.until(2);
    request.controller.abort(new Error('Stopped by the user'));
    await assert.rejects(decision, /Stopped by the user/);
    assert.equal(gate.pendingCount, 0);
    assert.equal(gate.resurface(), 0, 'nothing is shown again for a stopped run');
    double.shown[1]!.answer(APPROVE);
    assert.equal(double.shown.length, 2);
  });

  it('a run stopped while "Show Details" is open asks no more', async () => {
    const double = new NotificationDouble();
    const request = writeRequest('w1');
    const gate = gateWith(double, {
      showDetails: async () => request.controller.abort(new Error('stopped')),
    });
    const decision = gate.request(request);
    await double.until(1);
    double.shown[0]!.answer(DETAILS);
    await assert.rejects(decision, /stopped/);
    assert.equal(double.shown.length, 1);
  });

  it("a question the editor refuses to show fails with the editor's reason: no silent denial, no hang", async () => {
    const double = new NotificationDouble();
    double.refuseModals = true;
    const gate = gateWith(double, { resurfaceAfterMs: 0 });
    await assert.rejects(gate.request(writeRequest('p1', { protectedPath: true })), /refused to show dialog/);
    assert.equal(gate.pendingCount, 0, 'nothing is left waiting');
  });

  it('shows only the questions still waiting, not a modal one (it cannot hide), not one just shown', async () => {
    const double = new NotificationDouble();
    let now = 10_000;
    const gate = gateWith(double, { resurfaceAfterMs: 1_000, now: () => now });
    const plain = gate.request(writeRequest('plain'));
    const guarded = gate.request(writeRequest('guarded', { protectedPath: true }));
    const answered = gate.request(writeRequest('answered'));
    await double.until(3);
    double.open(/answered/)[0]!.answer(APPROVE);
    await answered;
    assert.equal(gate.resurface(), 0, 'shown a moment ago (a double click on the row): not again');
    now += 1_000;
    assert.equal(gate.resurface(), 1);
    await double.until(4);
    assert.match(double.shown[3]!.text, /plain/);
    assert.equal(double.shown[3]!.modal, false);
    for (const shown of double.open()) shown.answer(DENY);
    assert.equal((await plain).approved, false);
    assert.equal((await guarded).approved, false);
  });

  it('no answer within the deadline is a timeout, whichever notification is out', async () => {
    const double = new NotificationDouble();
    const gate = gateWith(double, { timeoutMs: 30, resurfaceAfterMs: 0 });
    const decision = gate.request(writeRequest('w1'));
    await double.until(1);
    gate.resurface();
    assert.equal((await decision).source, 'timeout');
    assert.equal(gate.pendingCount, 0);
  });
});

describe('Show Session shows the session’s waiting questions again (issue 33)', () => {
  const SHOW = 'openagent.showSession';
  /** Two sessions (stand-ins: only their identity matters here), a Show Session that picks like the palette. */
  function window() {
    const sessions = { a: {} as ConversationSession, b: {} as ConversationSession };
    let shownId: 'a' | 'b' = 'a';
    let picked: 'a' | 'b' | undefined;
    const registry = {
      get: (id: string) =>
        id === 'a' || id === 'b' ? { id, name: id, place: PLACE, session: sessions[id] } : undefined,
      get shown() {
        return { id: shownId, name: shownId, place: PLACE, session: sessions[shownId] };
      },
    };
    const resurfaced: string[] = [];
    const commands = withPendingApprovals(
      {
        [SHOW]: async (id?: string) => {
          const chosen = typeof id === 'string' ? id : picked;
          if (chosen === 'a' || chosen === 'b') shownId = chosen;
        },
      },
      SHOW,
      registry,
      (session) => ({ resurface: () => resurfaced.push(session === sessions.a ? 'a' : 'b') }),
    );
    const show = commands[SHOW] as (id?: string) => Promise<unknown>;
    return { show, resurfaced, pick: (id: 'a' | 'b' | undefined) => (picked = id) };
  }

  it('a click on a row: that session’s, whether it was shown already or not', async () => {
    const { show, resurfaced } = window();
    await show('a');
    await show('b');
    assert.deepEqual(resurfaced, ['a', 'b']);
  });

  it('from the palette: the session picked; nothing when the pick is cancelled or names no session', async () => {
    const { show, resurfaced, pick } = window();
    pick(undefined);
    await show();
    assert.deepEqual(resurfaced, []);
    pick('b');
    await show();
    assert.deepEqual(resurfaced, ['b']);
    await show('no-such-session');
    assert.deepEqual(resurfaced, ['b']);
  });
});
