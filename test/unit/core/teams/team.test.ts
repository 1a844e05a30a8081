/**
 * A lead and two teammates, each its own agent loop on its own scripted model (so concurrent
 * requests cannot take each other's answers), working a shared task board to completion:
 * teammates claim the tasks, write the files, report to the lead, and shut down on request.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Conversation } from '../../../../src/core/agent/conversation';
import type { AgentEvent } from '../../../../src/core/events/events';
import { TaskBoard } from '../../../../src/core/tasks/task-board';
import { Team } from '../../../../src/core/teams/team';
import { TeamBus } from '../../../../src/core/teams/team-bus';
import { createTaskTools } from '../../../../src/core/tools/builtin/tasks';
import { FileTaskStorage } from '../../../../src/node/file-task-storage';
import { FileTeamStorage } from '../../../../src/node/file-team-storage';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { clientFor, writeFileTool, writes } from '../agent/loop-harness';

/** A teammate's script: whichever task it claims, it writes that file, completes it and reports. */
function teammateScript(name: string): ScenarioInput {
  const work = (id: string, file: string) => ({
    match: `claimed task #${id}`,
    toolCalls: [
      { id: `${name}_w${id}`, name: 'write_file', arguments: { path: file, content: `${file} by ${name}` } },
      { id: `${name}_u${id}`, name: 'task_update', arguments: { taskId: id, status: 'completed' } },
      { id: `${name}_m${id}`, name: 'send_message', arguments: { to: 'lead', text: `Finished #${id}.` } },
    ],
  });
  return {
    name,
    turns: [
      { match: `You are "${name}"`, text: 'Ready for work.' },
      { match: 'Build the two files', text: 'Ready for work.' },
      work('1', 'a.txt'),
      work('2', 'b.txt'),
      {
        match: 'shutdown_request',
        toolCalls: [
          { id: `${name}_bye`, name: 'send_message', arguments: { to: 'lead', text: 'Done here.', approve: true } },
        ],
      },
      // After each tool batch (its last user message is only tool results).
      { match: '', text: 'Reported.' },
      { match: '', text: 'Reported.' },
      { match: '', text: 'Stopping.' },
    ],
  };
}

const LEAD_SCRIPT: ScenarioInput = {
  name: 'lead',
  turns: [
    {
      match: 'Build a.txt and b.txt',
      toolCalls: [
        { id: 'c1', name: 'task_create', arguments: { subject: 'Write a.txt' } },
        { id: 'c2', name: 'task_create', arguments: { subject: 'Write b.txt' } },
        {
          id: 's1',
          name: 'spawn_teammate',
          arguments: { name: 'alice', role: 'writer', prompt: 'Build the two files with me.' },
        },
        {
          id: 's2',
          name: 'spawn_teammate',
          arguments: { name: 'bob', role: 'writer', prompt: 'Build the two files with me.' },
        },
      ],
    },
    { match: '', toolCalls: [{ id: 'r1', name: 'read_inbox', arguments: { waitSeconds: 20 } }] },
    { match: '', toolCalls: [{ id: 'r2', name: 'read_inbox', arguments: { waitSeconds: 3 } }] },
    {
      match: '',
      toolCalls: [
        { id: 'x1', name: 'shutdown_request', arguments: { name: 'alice' } },
        { id: 'x2', name: 'shutdown_request', arguments: { name: 'bob' } },
      ],
    },
    { match: '', toolCalls: [{ id: 'r3', name: 'read_inbox', arguments: { waitSeconds: 20 } }] },
    { match: '', toolCalls: [{ id: 'r4', name: 'read_inbox', arguments: { waitSeconds: 3 } }] },
    { match: '', text: 'All done: a.txt and b.txt are written.' },
  ],
  whenExhausted: 'echo',
};

describe('a team: the lead and two teammates on a shared task board', function () {
  this.timeout(60_000);
  let dir: string;
  let servers: FakeModelServer[] = [];
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-team-'))));
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('works the board to completion and shuts the teammates down on request', async () => {
    const [lead, alice, bob] = (servers = await Promise.all([
      FakeModelServer.start({ scenario: LEAD_SCRIPT }),
      FakeModelServer.start({ scenario: teammateScript('alice') }),
      FakeModelServer.start({ scenario: teammateScript('bob') }),
    ]));
    writes.length = 0;
    const clock = { now: () => Date.now() };
    const taskStorage = new FileTaskStorage(path.join(dir, 'tasks'));
    const events: AgentEvent[] = [];
    // Built after the team it hands its tools to; reports reach it through this holder.
    const holder: { lead?: Conversation } = {};
    const board = () =>
      new TaskBoard({
        storage: taskStorage,
        boardId: 'conv-team',
        now: clock.now,
        report: (body) => holder.lead!.report(body),
      });
    const taskTools = createTaskTools(() => board());
    const modelFor: Record<string, FakeModelServer> = { alice: alice!, bob: bob! };
    const team = new Team({
      bus: new TeamBus(new FileTeamStorage(path.join(dir, 'teams')), 'conv-team', clock.now),
      board,
      report: (body, agentId) => holder.lead!.report(body, agentId),
      memberTools: () => [writeFileTool, ...taskTools],
      maxTeammates: () => 5,
      pollMs: 50,
      idleMs: 15_000,
      createTeammate: (spec) =>
        new Conversation({
          id: 'conv-team',
          agentId: spec.name,
          model: { llm: clientFor('anthropic', modelFor[spec.name]!), model: 'claude-haiku-4-5' },
          system: `You are a test agent.\n\n${spec.brief}`,
          clock,
          tools: spec.tools,
          inboxes: [spec.inbox],
          subagents: false,
          // The user approves the teammates' writes.
          approvals: { request: async () => ({ approved: true, source: 'user' as const }) },
          retry: { maxRetries: 0 },
          // Every teammate call passes this: its warnings must reach the lead's stream.
          limits: { callCostWarningUsd: 0.000_01 },
        }),
    });
    const leadConversation = new Conversation({
      id: 'conv-team',
      model: { llm: clientFor('anthropic', lead!), model: 'claude-haiku-4-5' },
      system: 'You are a test agent.',
      clock,
      tools: [...taskTools, ...team.leadTools()],
      inboxes: [team.drainLead],
      retry: { maxRetries: 0 },
    });
    holder.lead = leadConversation;
    leadConversation.subscribe((event) => events.push(event));

    await leadConversation.submit('Build a.txt and b.txt with a team.');
    await team.settled();

    // The lead's answer, after both reports and both shutdowns.
    const answer = events
      .filter((event) => event.type === 'text_delta')
      .map((event) => (event.type === 'text_delta' ? event.text : ''))
      .join('');
    assert.equal(answer, 'All done: a.txt and b.txt are written.');
    // Both files written, each by whoever claimed its task; both tasks completed with an owner.
    assert.deepEqual(writes.map((write) => write.path).sort(), ['a.txt', 'b.txt']);
    const tasks = await board().list();
    assert.deepEqual(
      tasks.map((task) => [task.subject, task.status]),
      [
        ['Write a.txt', 'completed'],
        ['Write b.txt', 'completed'],
      ],
    );
    assert.ok(
      tasks.every((task) => task.owner === 'alice' || task.owner === 'bob'),
      JSON.stringify(tasks),
    );
    for (const write of writes) {
      const task = tasks.find((candidate) => candidate.subject === `Write ${write.path}`);
      assert.equal(write.content, `${write.path} by ${task?.owner}`, 'the owner did the work');
    }
    // The lead heard both reports and both shutdown answers, through its inbox.
    const leadCalls = lead!.modelCalls.map((call) => JSON.stringify(call.body));
    assert.ok(leadCalls.some((body) => /Finished #1/.test(body)) && leadCalls.some((body) => /Finished #2/.test(body)));
    assert.equal(
      leadCalls.filter((body) => /answer to req-\d from (alice|bob)\] Done here/.test(body)).length >= 1,
      true,
    );
    // Status as the panel sees it: each teammate worked, idled and shut down.
    for (const name of ['alice', 'bob']) {
      const statuses = events.flatMap((event) =>
        event.type === 'teammate_status' && event.name === name ? [event.status] : [],
      );
      assert.equal(statuses[0], 'working', `${name}: ${statuses.join(' → ')}`);
      assert.ok(statuses.includes('idle'), `${name}: ${statuses.join(' → ')}`);
      assert.equal(statuses.at(-1), 'shutdown', `${name}: ${statuses.join(' → ')}`);
    }
    // A teammate's cost warnings reach the lead's stream (the chat shows them), under its name.
    const warned = new Set(events.flatMap((event) => (event.type === 'cost_warning' ? [event.agentId] : [])));
    assert.deepEqual([...warned].sort(), ['alice', 'bob']);
    // Teammates' model calls count as the conversation's usage; the inboxes are stored.
    const calls = events.filter((event) => event.type === 'usage' && event.scope === 'call').length;
    assert.equal(calls, lead!.modelCalls.length + alice!.modelCalls.length + bob!.modelCalls.length);
    const stored = JSON.parse(fs.readFileSync(path.join(dir, 'teams', 'conv-team.json'), 'utf8'));
    assert.deepEqual(
      stored.members.map((member: { name: string }) => member.name),
      ['alice', 'bob'],
    );
    assert.deepEqual(
      stored.requests.map((request: { status: string }) => request.status),
      ['approved', 'approved'],
    );
  });

  it('an idle teammate shuts down after idleMs, and disposing the team stops a waiting one at once', async () => {
    const [model] = (servers = [
      await FakeModelServer.start({ scenario: { name: 'idle', turns: [], whenExhausted: 'echo' } }),
    ]);
    const statuses: string[] = [];
    const make = (idleMs: number) =>
      new Team({
        bus: new TeamBus(new FileTeamStorage(path.join(dir, 'teams')), `t${idleMs}`, Date.now),
        board: () =>
          new TaskBoard({
            storage: new FileTaskStorage(path.join(dir, 'tasks')),
            boardId: `t${idleMs}`,
            now: Date.now,
          }),
        report: (body) => body.type === 'teammate_status' && statuses.push(`${idleMs}:${body.status}`),
        memberTools: () => [],
        maxTeammates: () => 5,
        pollMs: 20,
        idleMs,
        createTeammate: (spec) =>
          new Conversation({
            id: 'c',
            agentId: spec.name,
            model: { llm: clientFor('anthropic', model!), model: 'claude-haiku-4-5' },
            system: spec.brief,
            clock: { now: Date.now },
            tools: spec.tools,
            subagents: false,
          }),
      });
    const quick = make(200);
    const before = Date.now();
    await quick.spawn('solo', 'r', 'Hello.');
    await quick.settled();
    assert.ok(Date.now() - before >= 200, `idled ${Date.now() - before} ms`);
    assert.deepEqual(statuses, ['200:working', '200:idle', '200:shutdown']);
    const long = make(600_000);
    await long.spawn('waiter', 'r', 'Hello.');
    while (!statuses.includes('600000:idle')) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await long.dispose();
    assert.ok(Date.now() - started < 60_000, 'not after the ten idle minutes');
    assert.equal(statuses.at(-1), '600000:shutdown');
    await assert.rejects(long.spawn('late', 'r', 'x'), /The team has ended/);
  });

  it('a teammate whose spawn was still being recorded when the team ended is never started', async () => {
    const storage = new FileTeamStorage(path.join(dir, 'teams'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const team = new Team({
      // The member is added only once the test lets the write through.
      bus: new TeamBus(
        { read: (id) => storage.read(id), update: async (id, change) => (await held, storage.update(id, change)) },
        'late',
        Date.now,
      ),
      board: () =>
        new TaskBoard({ storage: new FileTaskStorage(path.join(dir, 'tasks')), boardId: 'late', now: Date.now }),
      report: () => undefined,
      memberTools: () => [],
      maxTeammates: () => 5,
      createTeammate: (spec) => {
        started.push(spec.name);
        return { submit: async () => undefined, stop: () => undefined, subscribe: () => () => undefined };
      },
    });
    const spawning = team.spawn('late', 'r', 'Hello.');
    await team.dispose();
    release();
    await assert.rejects(spawning, /The team has ended/);
    assert.deepEqual(started, [], 'no teammate outlives its team');
  });

  it('refuses a sixth teammate and a duplicate name; only the addressee answers a request', async () => {
    const bus = new TeamBus(new FileTeamStorage(dir), 't', Date.now);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await bus.addMember(name, 'r', 5);
    await assert.rejects(bus.addMember('f', 'r', 5), /The team is full: at most 5 teammates/);
    await assert.rejects(bus.addMember('a', 'r', 9), /already a teammate named "a"/);
    const id = await bus.request('plan', 'a', 'lead', 'My plan');
    await assert.rejects(bus.respond('b', 'a', id, true, 'ok'), /sent to lead: only they can answer it/);
    assert.equal((await bus.respond('lead', 'a', undefined, false, 'Add tests first.')).status, 'rejected');
    await assert.rejects(bus.respond('lead', 'a', id, true, 'again'), /already rejected/);
    const [answer] = await bus.drain('a');
    assert.deepEqual([answer?.kind, answer?.requestId, answer?.text], ['response', id, 'Add tests first.']);
    await assert.rejects(bus.send({ from: 'a', to: 'nobody', text: 'hi' }), /no teammate named "nobody"/);
  });
});
