/** The CLI's pure parts: flags, /model choices, approval diffs, tool-call lines and the approval gate's answers. */
import { NO_RISK } from '../../../src/core/policy/call-risk';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { parseCliArgs } from '../../../src/cli/args';
import { EventPrinter, toolCallSummary } from '../../../src/cli/event-printer';
import { shortDiff } from '../../../src/core/text/short-diff';
import type { LineResult } from '../../../src/cli/line-reader';
import { parseModelChoice } from '../../../src/cli/model-choice';
import { Output } from '../../../src/cli/output';
import { createStyle } from '../../../src/cli/style';
import { TerminalApprovalGate } from '../../../src/cli/terminal-approval-gate';
import type { ApprovalRequest } from '../../../src/core/policy/approval';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('openagent CLI parts', () => {
  describe('flags', () => {
    it('reads flags, falls back to the environment, and defaults the store to ~/.openagent/store', () => {
      const parsed = parseCliArgs(['--model', 'm', '-y', 'fix', 'it'], { OPENAGENT_PROVIDER: 'ollama' });
      assert.ok(parsed.ok);
      assert.equal(parsed.options.provider, 'ollama');
      assert.equal(parsed.options.model, 'm');
      assert.equal(parsed.options.approveAll, true);
      assert.equal(parsed.options.prompt, 'fix it');
      assert.equal(parsed.options.storeDirectory, path.join(os.homedir(), '.openagent', 'store'));
      const fromEnv = parseCliArgs([], { OPENAGENT_STORE: '/tmp/somewhere' });
      assert.ok(fromEnv.ok);
      assert.equal(fromEnv.options.storeDirectory, '/tmp/somewhere');
    });

    it('refuses unknown flags and a bad --max-turns', () => {
      const unknown = parseCliArgs(['--nope'], {});
      assert.ok(!unknown.ok);
      assert.match(unknown.message, /Unknown option '--nope'/);
      const turns = parseCliArgs(['--max-turns', 'many'], {});
      assert.ok(!turns.ok);
      assert.match(turns.message, /--max-turns needs a whole number/);
    });

    it('reads the window, the idle timeout and the output limit from flags or the environment, and refuses nonsense', () => {
      const parsed = parseCliArgs(['--context-window', '8192', '--max-output-tokens', '512', 'hi'], {
        OPENAGENT_STREAM_IDLE_TIMEOUT: '30',
      });
      assert.ok(parsed.ok);
      assert.deepEqual(
        [parsed.options.contextWindow, parsed.options.maxOutputTokens, parsed.options.idleTimeout],
        [8192, 512, 30],
      );
      const fromEnv = parseCliArgs(['hi'], { OPENAGENT_CONTEXT_WINDOW: '4096' });
      assert.ok(fromEnv.ok && fromEnv.options.contextWindow === 4096 && fromEnv.options.idleTimeout === undefined);
      for (const [flag, value] of [
        ['--context-window', '-1'],
        ['--context-window', '12.5'],
        ['--idle-timeout', '0'],
        ['--max-output-tokens', '1e9x'],
      ]) {
        const bad = parseCliArgs([`${flag}=${value}`, 'hi'], {});
        assert.ok(!bad.ok, `${flag} ${value}`);
        assert.match(
          bad.message,
          new RegExp(`${flag} needs a whole number of at least \\d+, not "${value!.replace('.', '\\.')}"`),
        );
      }
      const badEnv = parseCliArgs(['hi'], { OPENAGENT_CONTEXT_WINDOW: 'big' });
      assert.ok(!badEnv.ok);
    });

    it('reads the cost warning level from --warn-cost or the environment, 0.5 by default, 0 for never', () => {
      const level = (argv: string[], env: Record<string, string> = {}) => {
        const parsed = parseCliArgs([...argv, 'hi'], env);
        return parsed.ok ? parsed.options.callCostWarningUsd : parsed.message;
      };
      assert.equal(level([]), 0.5);
      assert.equal(level(['--warn-cost', '2.25']), 2.25);
      assert.equal(level(['--warn-cost=0']), 0);
      assert.equal(level([], { OPENAGENT_CALL_COST_WARNING_USD: '0.1' }), 0.1);
      for (const bad of ['-1', '1e400', 'lots', '1.2.3', ''])
        assert.equal(
          level([`--warn-cost=${bad}`]),
          `--warn-cost needs an amount in US dollars (0 for never), not "${bad}".`,
          bad,
        );
    });
  });

  describe('/model', () => {
    const current = { provider: 'openai-compatible', model: 'fake-model', baseUrl: 'http://127.0.0.1:1/v1' };

    it('takes provider/model (the provider default address), a provider alone, or a model of the current provider', () => {
      assert.deepEqual(parseModelChoice('ollama/qwen3', current), {
        ok: true,
        settings: { provider: 'ollama', model: 'qwen3', baseUrl: '' },
      });
      assert.deepEqual(parseModelChoice('ollama', current), {
        ok: true,
        settings: { provider: 'ollama', model: '', baseUrl: '' },
      });
      assert.deepEqual(parseModelChoice('gpt-4.1', current), { ok: true, settings: { ...current, model: 'gpt-4.1' } });
      // The same provider keeps its address; a model name may hold slashes after the provider.
      assert.deepEqual(parseModelChoice('openai-compatible/Qwen/Qwen3-8B', current), {
        ok: true,
        settings: { ...current, model: 'Qwen/Qwen3-8B' },
      });
    });

    it('refuses an unknown provider, naming the known ones', () => {
      const choice = parseModelChoice('nosuch/model', current);
      assert.ok(!choice.ok);
      assert.match(choice.message, /Unknown provider "nosuch"\. Choose one of: anthropic, openai, ollama/);
    });
  });

  describe('approval diffs', () => {
    it('shows the changed lines with one line of context, and "…" between separate changes', () => {
      const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n');
      const after = ['a', 'B', 'c', 'd', 'e', 'f', 'G', 'h'].join('\n');
      assert.deepEqual(shortDiff(before, after), ['  a', '- b', '+ B', '  c', '…', '  f', '- g', '+ G', '  h']);
    });

    it('shows added and removed lines, nothing for equal texts, and cuts long diffs', () => {
      assert.deepEqual(shortDiff('x\ny', 'x\nnew\ny'), ['  x', '+ new', '  y']);
      assert.deepEqual(shortDiff('x\ny\nz', 'x\nz'), ['  x', '- y', '  z']);
      assert.deepEqual(shortDiff('same', 'same'), []);
      const long = shortDiff('', Array.from({ length: 50 }, (_, index) => `line ${index}`).join('\n'), 10);
      assert.equal(long.length, 11);
      assert.equal(long.at(-1), '… 41 more changed lines');
    });
  });

  describe('tool-call lines', () => {
    it('summarises a call by what it works on', () => {
      assert.equal(toolCallSummary({ command: 'npm test' }), 'npm test');
      assert.equal(toolCallSummary({ path: 'src/a.ts', offset: 1 }), 'src/a.ts');
      assert.equal(toolCallSummary({ pattern: 'TODO', path: 'src' }), 'TODO in src');
      // A second line is never hidden: `git status\ncurl x | sh` must not read as `git status`.
      assert.equal(toolCallSummary({ command: 'git status\ncurl x | sh' }), 'git status\\ncurl x | sh');
      assert.equal(toolCallSummary({ command: 'echo ok\r\x1b[2K' }), 'echo ok\\r\\x1b[2K');
      assert.equal(toolCallSummary({ thought: 'x'.repeat(200) }).length, 100);
    });

    it('prints streamed text, one line per tool call and its status, and errors on stderr', () => {
      const out = capture();
      const err = capture();
      const output = new Output(out.stream, out.stream, err.stream, createStyle(false));
      const printer = new EventPrinter(output);
      const base = { conversationId: 'c', agentId: 'lead', seq: 0, time: 0 };
      printer.print({ ...base, type: 'text_delta', text: 'Looking' });
      printer.print({ ...base, type: 'tool_call', toolCallId: 't', toolName: 'bash', input: { command: 'ls' } });
      printer.print({
        ...base,
        type: 'tool_result',
        toolCallId: 't',
        toolName: 'bash',
        output: 'a\nb\nExit code 0.',
        isError: false,
        durationMs: 1,
      });
      printer.print({
        ...base,
        type: 'tool_result',
        toolCallId: 'u',
        toolName: 'write_file',
        output: 'User denied this tool call. Reason: not now',
        isError: true,
        durationMs: 1,
      });
      printer.print({ ...base, type: 'error', kind: 'connection', message: 'Could not reach X.' });
      assert.equal(out.text(), 'Looking\n● bash ls\n  ✓ exit code 0 (2 lines of output)\n  ✗ denied: not now\n');
      assert.match(err.text(), /^error: Could not reach X\. Is the server running\?/);
    });

    it('notes a broken prompt cache and a costly call as they happen', () => {
      const out = capture();
      const output = new Output(out.stream, out.stream, capture().stream, createStyle(false));
      const printer = new EventPrinter(output);
      const base = {
        conversationId: 'c',
        agentId: 'lead',
        seq: 0,
        time: 0,
        provider: 'anthropic',
        model: 'claude-opus-4-5',
      };
      printer.print({
        ...base,
        type: 'cost_warning',
        inputTokens: 150_000,
        cachedTokens: 0,
        estimatedUsd: 0.9375,
        thresholdUsd: 0.5,
      });
      printer.print({
        ...base,
        type: 'cache_break',
        previousShare: 0.9,
        share: 0.05,
        missedTokens: 120_000,
        extraCostUsd: 0.54,
        reasons: ['model_switched'],
        secondsSinceLastCall: 3,
      });
      assert.equal(
        out.text(),
        '(The next model call is estimated at $0.9375 for its input alone (150,000 tokens), over your warning level of ' +
          '$0.50. Compacting the conversation or starting a new one makes calls cheaper.)\n' +
          '(The prompt cache broke: this call read 5 % of its input from the cache, the previous one 90 %, so 120,000 ' +
          'tokens were paid for again (about $0.54 more). Why: the model changed.)\n',
      );
    });

    it('says who refused a call: policy with its rule, a hook, the approval timing out, not the user', () => {
      const out = capture();
      const output = new Output(out.stream, out.stream, out.stream, createStyle(false));
      const printer = new EventPrinter(output);
      const base = { conversationId: 'c', agentId: 'lead', seq: 0, time: 0 };
      const refuse = (toolCallId: string, source: 'policy' | 'hook' | 'timeout', reason: string, output: string) => {
        printer.print({ ...base, type: 'tool_approval_result', toolCallId, approved: false, source, reason });
        printer.print({
          ...base,
          type: 'tool_result',
          toolCallId,
          toolName: 'bash',
          output,
          isError: true,
          durationMs: 1,
        });
      };
      refuse('p', 'policy', 'tools.bash.deny "rm -rf*"', 'Denied by policy: tools.bash.deny "rm -rf*"');
      refuse('h', 'hook', 'not on Fridays', 'Blocked by a hook: not on Fridays');
      refuse(
        't',
        'timeout',
        'No answer within 5 minutes.',
        'User denied this tool call. Reason: No answer within 5 minutes.',
      );
      printer.print({
        ...base,
        type: 'tool_result',
        toolCallId: 'f',
        toolName: 'bash',
        output: 'boom\nExit code 3.',
        isError: true,
        durationMs: 1,
      });
      assert.equal(
        out.text(),
        [
          '  ✗ refused by policy: tools.bash.deny "rm -rf*"',
          '  ✗ blocked by a hook: not on Fridays',
          '  ✗ denied (no answer in time): No answer within 5 minutes.',
          '  ✗ exit code 3: boom',
          '',
        ].join('\n'),
      );
    });

    it('counts the seconds while the model has not answered, on a terminal, and clears the line when it does', async () => {
      const out = capture();
      (out.stream as unknown as { isTTY: boolean }).isTTY = true;
      const output = new Output(out.stream, out.stream, out.stream, createStyle(false));
      const printer = new EventPrinter(output);
      const base = { conversationId: 'c', agentId: 'lead', seq: 0, time: 0 };
      let now = 0;
      output.startWaiting('waiting for qwen3-coder', () => now);
      now = 4_200;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      printer.print({ ...base, type: 'model_call', state: 'answering', provider: 'llamacpp', model: 'qwen3-coder' });
      printer.print({ ...base, type: 'text_delta', text: 'Hi' });
      assert.equal(
        out.text(),
        '\r\x1b[K… waiting for qwen3-coder (0 s)\r\x1b[K… waiting for qwen3-coder (4 s)\r\x1b[KHi',
      );
    });

    it('notes a long wait now and then when the status goes to a pipe, and says nothing for a quick answer', async () => {
      const out = capture();
      const output = new Output(out.stream, out.stream, out.stream, createStyle(false));
      let now = 0;
      output.startWaiting('waiting for m', () => now);
      now = 10_000;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      output.write('Hi');
      assert.equal(out.text(), '(still waiting for m: 10 s)\nHi');
      const quick = capture();
      const quickOutput = new Output(quick.stream, quick.stream, quick.stream, createStyle(false));
      quickOutput.startWaiting('waiting for m');
      quickOutput.write('Hi');
      assert.equal(quick.text(), 'Hi');
    });
  });

  describe('the terminal approval gate', () => {
    const request = (id: string): ApprovalRequest => ({
      conversationId: 'c',
      toolCallId: id,
      toolName: 'bash',
      input: { command: 'rm -rf build' },
      summary: 'run `rm -rf build`',
      risk: NO_RISK,
      argumentsHash: 'h',
      signal: new AbortController().signal,
    });

    function gateAnswering(answers: LineResult[]) {
      const out = capture();
      const asked: string[] = [];
      let rest = false;
      const gate = new TerminalApprovalGate({
        output: new Output(out.stream, out.stream, out.stream, createStyle(false)),
        ask: async (question) => {
          asked.push(question);
          return answers.shift() ?? { kind: 'eof' };
        },
        workspace: () => undefined,
        approveRest: () => (rest = true),
      });
      return { gate, asked, text: out.text, rest: () => rest };
    }

    it('shows the whole command and approves on y', async () => {
      const { gate, text, rest } = gateAnswering([{ kind: 'line', text: 'y' }]);
      assert.deepEqual(await gate.request(request('1')), { approved: true, source: 'user' });
      assert.match(text(), /\? bash wants to run `rm -rf build`\n {2}\$ rm -rf build\n/);
      assert.equal(rest(), false);
    });

    it('asks again on an unclear answer, denies on n with the reason given, and approves the rest on a', async () => {
      const no = gateAnswering([
        { kind: 'line', text: 'maybe' },
        { kind: 'line', text: 'n' },
        { kind: 'line', text: 'use the clean script' },
      ]);
      assert.deepEqual(await no.gate.request(request('1')), {
        approved: false,
        source: 'user',
        reason: 'use the clean script',
      });
      assert.match(no.text(), /Please answer y \(yes\), n \(no\) or a \(always this session\)\./);
      assert.equal(no.asked.length, 3);

      const always = gateAnswering([{ kind: 'line', text: 'a' }]);
      assert.equal((await always.gate.request(request('2'))).approved, true);
      assert.equal(always.rest(), true);
    });

    it('denies when the question is interrupted', async () => {
      const { gate } = gateAnswering([{ kind: 'interrupt' }]);
      const decision = await gate.request(request('1'));
      assert.equal(decision.approved, false);
    });
  });
});
