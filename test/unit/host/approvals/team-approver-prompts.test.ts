/**
 * The approver's notifications (issue 37), with a fake inbox and fake windows: what each new
 * request shows, what Show Details opens, the reason asked on Deny (optional on Approve), a
 * decision that lost the race, a refusal by the database, and Show Team Approvals.
 */
import assert from 'node:assert/strict';
import type { ApproverInboxPort } from '../../../../src/core/team/approver-inbox';
import {
  TeamApprovalRefusedError,
  type TeamApprovalRecord,
  type TeamApprovalVerdict,
} from '../../../../src/core/team/team-approvals';
import {
  detailsText,
  notificationText,
  TeamApproverPrompts,
  type ApproverWindow,
} from '../../../../src/host/approvals/team-approver-prompts';

function record(fields: Partial<TeamApprovalRecord> = {}): TeamApprovalRecord {
  return {
    id: 'r1',
    requester: 'bob@corp',
    repository: 'acme/api',
    conversationId: 'c1',
    agentId: 'lead',
    tool: 'bash',
    arguments: { command: 'git push --force origin main', token: '[REDACTED]' },
    shown: '$ git push --force origin main',
    lastUserMessage: 'push my branch, force it',
    matched: ['bash "git push*"'],
    approvers: ['alice@corp', 'team:leads'],
    createdAt: Date.UTC(2030, 0, 1, 14, 0),
    deadline: Date.UTC(2030, 0, 1, 14, 30),
    remainingMs: 1_800_000,
    state: 'pending',
    ...fields,
  };
}

class FakeInbox implements ApproverInboxPort {
  list: TeamApprovalRecord[] = [];
  decisions: Array<{ id: string; verdict: TeamApprovalVerdict; reason?: string }> = [];
  answer: (id: string) => Promise<{ won: boolean; record: TeamApprovalRecord }> = async (id) => ({
    won: true,
    record: record({ id, state: 'approved' }),
  });
  private listener:
    ((pending: readonly TeamApprovalRecord[], added: readonly TeamApprovalRecord[]) => void) | undefined;

  pending() {
    return this.list;
  }
  onChange(listener: (pending: readonly TeamApprovalRecord[], added: readonly TeamApprovalRecord[]) => void) {
    this.listener = listener;
    return () => (this.listener = undefined);
  }
  async refresh() {
    return this.list;
  }
  async decide(id: string, verdict: TeamApprovalVerdict, reason?: string) {
    this.decisions.push({ id, verdict, ...(reason !== undefined ? { reason } : {}) });
    return this.answer(id);
  }
  dispose() {}
  /** A read found `added` new. */
  arrive(...added: TeamApprovalRecord[]) {
    this.list.push(...added);
    this.listener?.(this.list, added);
  }
  get listening() {
    return this.listener !== undefined;
  }
}

/** Windows that answer from a script and note what they were shown. */
class FakeWindow implements ApproverWindow {
  asked: string[] = [];
  shown: Array<{ title: string; text: string }> = [];
  infos: string[] = [];
  warnings: string[] = [];
  reasonsAsked: Array<{ prompt: string; required: boolean }> = [];
  picks: Array<{ label: string }[]> = [];
  constructor(
    private readonly clicks: Array<string | undefined>,
    private readonly reasons: Array<string | undefined> = [],
    private readonly picked?: (items: { label: string }[]) => number | undefined,
  ) {}
  async ask(text: string) {
    this.asked.push(text);
    return this.clicks.shift();
  }
  async reason(prompt: string, required: boolean) {
    this.reasonsAsked.push({ prompt, required });
    return this.reasons.shift();
  }
  async pick<T extends { label: string }>(items: T[]) {
    this.picks.push(items);
    const index = this.picked?.(items);
    return index === undefined ? undefined : items[index];
  }
  async show(title: string, text: string) {
    this.shown.push({ title, text });
  }
  info(text: string) {
    this.infos.push(text);
  }
  warn(text: string) {
    this.warnings.push(text);
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the approver notifications (team-approver-prompts)', () => {
  it('shows each new request once, saying whose agent wants what where', async () => {
    const inbox = new FakeInbox();
    const window = new FakeWindow([undefined]);
    new TeamApproverPrompts(inbox, window);
    inbox.arrive(record());
    await settle();
    assert.deepEqual(window.asked, ["bob@corp's agent wants to run `git push --force origin main` in acme/api."]);
    assert.deepEqual(inbox.decisions, [], 'a dismissed notification decides nothing');
  });

  it('approves with an optional reason (none given: no reason sent)', async () => {
    const inbox = new FakeInbox();
    const window = new FakeWindow(['Approve', 'Approve'], ['release day', '']);
    new TeamApproverPrompts(inbox, window);
    inbox.arrive(record(), record({ id: 'r2' }));
    await settle();
    await settle();
    assert.deepEqual(inbox.decisions, [
      { id: 'r1', verdict: 'approve', reason: 'release day' },
      { id: 'r2', verdict: 'approve' },
    ]);
    assert.equal(window.reasonsAsked[0]!.required, false);
    assert.match(window.infos[0]!, /You approved bob@corp's request to run `git push --force origin main`/);
  });

  it('asks a reason on Deny, and a cancelled reason decides nothing', async () => {
    const inbox = new FakeInbox();
    const window = new FakeWindow(['Deny', 'Deny'], ['not before the release', undefined]);
    new TeamApproverPrompts(inbox, window);
    inbox.arrive(record(), record({ id: 'r2' }));
    await settle();
    await settle();
    assert.deepEqual(inbox.decisions, [{ id: 'r1', verdict: 'deny', reason: 'not before the release' }]);
    assert.equal(window.reasonsAsked[0]!.required, true);
    assert.match(window.reasonsAsked[0]!.prompt, /Why deny/);
  });

  it('opens the details read-only, then asks again', async () => {
    const inbox = new FakeInbox();
    const window = new FakeWindow(['Show Details', 'Approve'], ['']);
    new TeamApproverPrompts(inbox, window);
    inbox.arrive(record());
    await settle();
    await settle();
    assert.equal(window.shown.length, 1);
    const text = window.shown[0]!.text;
    for (const part of [
      '$ git push --force origin main',
      '"token": "[REDACTED]"',
      'push my branch, force it',
      'Deadline: 2030-01-01 14:30 UTC',
      'alice@corp, team:leads',
      'bash "git push*"',
    ])
      assert.ok(text.includes(part), `details lack ${part}:\n${text}`);
    assert.equal(window.asked.length, 2);
    assert.deepEqual(inbox.decisions, [{ id: 'r1', verdict: 'approve' }]);
  });

  it('does not ask again after the details when the request was decided meanwhile', async () => {
    const inbox = new FakeInbox();
    const window = new FakeWindow(['Show Details', 'Approve']);
    new TeamApproverPrompts(inbox, window);
    inbox.arrive(record());
    inbox.list = [];
    await settle();
    assert.equal(window.asked.length, 1);
    assert.deepEqual(inbox.decisions, []);
  });

  it('says plainly when someone else decided first', async () => {
    const inbox = new FakeInbox();
    inbox.answer = async (id) => ({
      won: false,
      record: record({ id, state: 'denied', decidedBy: 'carol@corp', reason: 'late' }),
    });
    const window = new FakeWindow(['Approve'], ['']);
    new TeamApproverPrompts(inbox, window);
    inbox.arrive(record());
    await settle();
    await settle();
    assert.deepEqual(window.warnings, [
      "Someone else decided first: bob@corp's request to run `git push --force origin main` was denied by carol@corp (late).",
    ]);
  });

  it("tells the database's refusal, and an outage, without losing the request", async () => {
    const inbox = new FakeInbox();
    let refuse = true;
    inbox.answer = async () => {
      if (refuse) throw new TeamApprovalRefusedError('login bob is not a named approver of request r1');
      throw new Error('connect ECONNREFUSED');
    };
    const window = new FakeWindow(['Approve'], ['']);
    const prompts = new TeamApproverPrompts(inbox, window);
    inbox.arrive(record());
    await settle();
    await settle();
    assert.match(window.warnings[0]!, /^The team database refused your decision: login bob is not a named approver/);
    refuse = false;
    const again = new FakeWindow(['Deny'], ['no']);
    await new TeamApproverPrompts(inbox, again).notify(record());
    assert.match(
      again.warnings[0]!,
      /could not send your decision \(the request stays pending\): connect ECONNREFUSED/,
    );
    prompts.dispose();
  });

  it('lists what waits in Show Team Approvals and asks about the one picked', async () => {
    const inbox = new FakeInbox();
    inbox.list = [
      record(),
      record({ id: 'r2', requester: 'dave@corp', shown: 'infra/main.tf\n- a\n+ b', tool: 'edit_file' }),
    ];
    const window = new FakeWindow(['Approve'], ['ok'], (items) =>
      items.findIndex((item) => item.label.includes('dave')),
    );
    const prompts = new TeamApproverPrompts(inbox, window);
    await prompts.list();
    assert.equal(window.picks[0]!.length, 2);
    assert.equal(window.picks[0]![1]!.label, "dave@corp's agent wants to use edit_file on infra/main.tf in acme/api.");
    assert.deepEqual(inbox.decisions, [{ id: 'r2', verdict: 'approve', reason: 'ok' }]);
    inbox.list = [];
    await prompts.list();
    assert.deepEqual(window.infos.at(-1), 'No approval request is waiting for you.');
  });

  it('stops listening when disposed', () => {
    const inbox = new FakeInbox();
    new TeamApproverPrompts(inbox, new FakeWindow([])).dispose();
    assert.equal(inbox.listening, false);
  });

  it('shows hostile text escaped: no fake line breaks or hidden characters in the notification', () => {
    const text = notificationText(
      record({ requester: 'bob@corp\u202e', shown: '$ git push\u0007 --force\nrm -rf /', repository: 'a\nb' }),
    );
    for (const hidden of ['\n', '\u202e', '\u0007']) assert.ok(!text.includes(hidden), text);
    assert.ok(!detailsText(record({ shown: 'x\u202ey' })).includes('\u202e'));
  });
});
