/**
 * The scripted run the replay tests record: text, two tool calls (a read and an approved write),
 * a denied approval, a call that failed once with a 429 and was retried, an explore sub-agent,
 * and a second prompt whose slow tool the user interrupts with a redirect. Recorded against the
 * fake model server in either wire format.
 */
import type { ApprovalGate } from '../../../../src/core/policy/approval';
import type { AnyTool } from '../../../../src/core/tools/tool';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { clientFor, readCall, TEST_TOOLS, type Protocol } from '../agent/loop-harness';
import { recordedConversation, type RecordedRun } from './test-recorder';

export const SCRIPTED_SCENARIO: ScenarioInput = {
  name: 'replay-scripted',
  turns: [
    {
      text: 'Let me look at the app first.',
      toolCalls: [readCall, { id: 'call_write', name: 'write_file', arguments: { path: 'src/app.ts', content: 'x' } }],
      usage: { input: 120, output: 30 },
    },
    {
      fault: { type: 'http_error', status: 429, times: 1 },
      toolCalls: [{ id: 'call_write_2', name: 'write_file', arguments: { path: 'src/other.ts', content: 'y' } }],
      usage: { input: 160, output: 20 },
    },
    {
      toolCalls: [
        {
          id: 'call_task',
          name: 'task',
          arguments: { kind: 'explore', description: 'Find the export', prompt: 'What does src/app.ts export?' },
        },
      ],
      usage: { input: 200, output: 25 },
    },
    { toolCalls: [readCall], usage: { input: 50, output: 10 } },
    { text: 'It exports answer = 42.', usage: { input: 70, output: 8 } },
    { text: 'Done: app.ts is updated; other.ts was refused.', usage: { input: 260, output: 15 } },
    {
      text: 'Running the slow thing.',
      toolCalls: [{ id: 'call_slow', name: 'slow_tool', arguments: {} }],
      usage: { input: 300, output: 10 },
    },
    { text: 'Skipped it, as you asked.', usage: { input: 320, output: 9 } },
  ],
};

/** Approves the first write, denies the second with a reason. */
export function scriptedGate(): ApprovalGate {
  let asked = 0;
  return {
    request: () =>
      Promise.resolve(
        ++asked === 1
          ? { approved: true, source: 'user' as const }
          : { approved: false, source: 'user' as const, reason: 'not that file' },
      ),
  };
}

export interface ScriptedRecording extends RecordedRun {
  server: FakeModelServer;
}

/** Runs the scripted conversation for real and records it. */
export async function recordScriptedRun(
  protocol: Protocol,
  scenario = SCRIPTED_SCENARIO,
  options: { secondPrompt?: boolean; tools?: AnyTool[] } = {},
): Promise<ScriptedRecording> {
  const server = await FakeModelServer.start({ scenario });
  let now = 1_000;
  const run = recordedConversation({
    id: `conv-${protocol}`,
    model: { llm: clientFor(protocol, server), model: protocol === 'anthropic' ? 'claude-sonnet-4-6' : 'gpt-4.1' },
    system: 'You are a test agent.',
    clock: { now: () => now++ },
    tools: options.tools ?? TEST_TOOLS,
    approvals: scriptedGate(),
    retry: { maxRetries: 2, sleep: () => Promise.resolve() },
  });
  await run.conversation.submit('Please update the app.');
  if (options.secondPrompt === false) return { ...run, server };
  const stop = run.conversation.subscribe((event) => {
    if (event.type === 'tool_call' && event.toolName === 'slow_tool')
      setTimeout(() => void run.conversation.interrupt('Skip that.'), 30);
  });
  await run.conversation.submit('Now run the slow thing.');
  stop();
  return { ...run, server };
}
