import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import { answerText, PROTOCOLS, readCall, startHarness, toolResultsIn, type Harness } from './loop-harness';

function toolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as Array<{ name?: string; function?: { name: string } }>;
  return tools.map((tool) => tool.name ?? tool.function!.name).sort();
}

const eventsOf = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

for (const protocol of PROTOCOLS) {
  describe(`sub-agents (${protocol} wire format)`, () => {
    let harness: Harness;
    afterEach(() => harness?.close());

    it('runs an explore sub-agent in a context of its own, with reading tools only, and returns its answer', async () => {
      harness = await startHarness(protocol, {
        name: 'explore',
        turns: [
          {
            toolCalls: [
              {
                id: 'call_task',
                name: 'task',
                arguments: { kind: 'explore', description: 'Find the export', prompt: 'What does src/app.ts export?' },
              },
            ],
            usage: { input: 100, output: 20 },
          },
          { toolCalls: [readCall], usage: { input: 50, output: 10 } },
          { text: 'It exports answer = 42.', usage: { input: 70, output: 8 } },
          { text: 'The sub-agent found that answer is 42.', usage: { input: 150, output: 12 } },
        ],
      });
      await harness.conversation.submit('Find out what app.ts exports, with a sub-agent.');
      const [parentFirst, childFirst, childSecond, parentLast] = harness.bodies();

      // The child's context: its own system brief and only the prompt it was given.
      assert.match(JSON.stringify(childFirst), /You are a sub-agent \(explore\)/);
      const childMessages = childFirst!.messages as unknown[];
      assert.equal(protocol === 'anthropic' ? childMessages.length : childMessages.length - 1, 1);
      assert.match(JSON.stringify(childMessages.at(-1)), /What does src\/app.ts export\?/);
      assert.ok(!JSON.stringify(childFirst).includes('with a sub-agent'), 'nothing of the parent conversation');
      // Reading tools only: no writing, no nesting, no acting on the parent's context.
      const offered = toolNames(childFirst!);
      assert.ok(offered.includes('read_file') && !offered.includes('write_file'), offered.join(', '));
      assert.ok(!offered.includes('task') && !offered.includes('compact'), offered.join(', '));
      assert.ok(toolNames(parentFirst!).includes('task'));
      assert.match(JSON.stringify(childSecond), /export const answer = 42/);

      const [start] = eventsOf(harness.events, 'subagent_start');
      // The parent gets the child's final answer as the task tool's result; its text stays out of the chat.
      const [result] = toolResultsIn(protocol, parentLast!);
      assert.equal(result?.content, 'It exports answer = 42.');
      assert.equal(answerText(harness.events), 'The sub-agent found that answer is 42.');
      // The child's tool calls are in the stream under its own id (panel, audit), not the lead's.
      const reads = eventsOf(harness.events, 'tool_call').filter((event) => event.toolName === 'read_file');
      assert.ok(reads.length > 0 && reads.every((event) => event.agentId === start?.subagentId), JSON.stringify(reads));

      // Cards: start and end with the child's own usage; the parent's run counts all four calls.
      const [end] = eventsOf(harness.events, 'subagent_end');
      assert.deepEqual([start?.kind, start?.description], ['explore', 'Find the export']);
      assert.equal(end?.subagentId, start?.subagentId);
      assert.equal(end?.summary, 'It exports answer = 42.');
      assert.deepEqual([end?.usage.inputTokens, end?.usage.outputTokens], [120, 18]);
      const calls = eventsOf(harness.events, 'usage').filter((event) => event.scope === 'call');
      assert.equal(calls.length, 4, 'every model call, the child’s included, is the parent’s usage');
      const run = eventsOf(harness.events, 'usage').find((event) => event.scope === 'turn');
      assert.deepEqual([run?.usage.inputTokens, run?.usage.outputTokens], [370, 50]);
    });

    it('gives a code sub-agent the writing tools; a sub-agent calling task is refused', async () => {
      harness = await startHarness(protocol, {
        name: 'code',
        turns: [
          {
            toolCalls: [
              {
                id: 'call_task',
                name: 'task',
                arguments: { kind: 'code', description: 'Write the file', prompt: 'Create notes.txt saying hi.' },
              },
            ],
          },
          {
            toolCalls: [
              {
                id: 'call_nested',
                name: 'task',
                arguments: { kind: 'explore', description: 'nested', prompt: 'Look around.' },
              },
            ],
          },
          { text: 'Could not nest; done anyway.' },
          { text: 'Done.' },
        ],
      });
      await harness.conversation.submit('Make notes.txt with a sub-agent.');
      const bodies = harness.bodies();
      const offered = toolNames(bodies[1]!);
      assert.ok(offered.includes('write_file') && !offered.includes('task'), offered.join(', '));
      const [nested] = toolResultsIn(protocol, bodies[2]!);
      if (protocol === 'anthropic') assert.equal(nested?.isError, true);
      assert.match(nested!.content, /There is no tool named "task" available now/);
      assert.equal(eventsOf(harness.events, 'subagent_start').length, 1, 'no second level');
    });

    it('reports a sub-agent that fails as a failed task, and the parent carries on', async () => {
      harness = await startHarness(protocol, {
        name: 'failing child',
        turns: [
          {
            toolCalls: [
              { id: 'call_task', name: 'task', arguments: { kind: 'plan', description: 'Plan', prompt: 'Plan it.' } },
            ],
          },
          // The child's call gets the error; the parent's next call gets the text.
          {
            text: 'The sub-agent failed; I will plan myself.',
            fault: { type: 'http_error', status: 400, message: 'bad request from the child' },
          },
        ],
      });
      await harness.conversation.submit('Plan with a sub-agent.');
      const [end] = eventsOf(harness.events, 'subagent_end');
      assert.match(end!.summary, /^The sub-agent failed: /);
      const [result] = toolResultsIn(protocol, harness.bodies().at(-1)!);
      if (protocol === 'anthropic') assert.equal(result?.isError, true);
      assert.match(result!.content, /^The sub-agent failed: .*bad request from the child/);
      assert.equal(answerText(harness.events), 'The sub-agent failed; I will plan myself.');
    });
  });
}
