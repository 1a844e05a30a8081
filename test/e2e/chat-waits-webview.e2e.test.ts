/**
 * How the built chat webview (dist/webview/chat.js) shows the waits of issue 32, in plain
 * Chromium fed host messages as VS Code delivers them: an answer that pauses mid-way says that
 * the model has sent nothing for N s (counting on), and stops saying it when the answer goes on;
 * Stop is offered from the moment a prompt is sent (while the host still sets the run up), and a
 * prompt stopped before its run began comes back into the composer. Needs `npm run package` (or
 * `node esbuild.mjs`) first.
 */
import assert from 'node:assert/strict';
import type { AgentEventBody } from '../../src/core/events/events';
import { modelLabel } from '../../src/protocol/events';
import { agentEvent, deliver, postedByWebview } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';

/** The host's message with the lead's events, stamped with the time they happen (the pause is counted from it). */
function eventsNow(...bodies: AgentEventBody[]) {
  return { type: 'agent_events', events: bodies.map((body) => ({ ...agentEvent(body), time: Date.now() })) };
}

const call = { provider: 'llamacpp', model: 'qwen2.5-coder-7b' };

describe('chat webview in Chromium: waits', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({});

  it('says that an answer under way has paused, counts on, and clears it when the answer goes on', async () => {
    const page = pages.page;
    const activity = page.locator('#activity');
    const label = modelLabel(call.provider, call.model);
    await deliver(page, [
      eventsNow(
        { type: 'user_message', text: 'Explain the module' },
        { type: 'model_call', state: 'waiting', ...call },
        { type: 'model_call', state: 'answering', ...call },
        { type: 'text_delta', text: 'The module ' },
        { type: 'model_call', state: 'stalled', ...call, silentMs: 12_000 },
      ),
    ]);
    const said = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has sent nothing for (\\d+) s$`);
    await page.waitForFunction(() => /has sent nothing for/.test(document.getElementById('activity')!.textContent!));
    assert.equal(await activity.isVisible(), true);
    const first = Number(said.exec(await activity.innerText())?.[1]);
    assert.ok(first >= 12, `the pause counted from its start: ${await activity.innerText()}`);
    // It counts on while the pause lasts.
    await page.waitForFunction(
      (before) => Number(/for (\d+) s/.exec(document.getElementById('activity')!.textContent!)?.[1]) > before,
      first,
    );
    // The answer goes on: the notice goes, the answer is whole.
    await deliver(page, [
      eventsNow({ type: 'model_call', state: 'answering', ...call }, { type: 'text_delta', text: 'parses YAML.' }),
    ]);
    await page.waitForFunction(() => !/sent nothing/.test(document.getElementById('activity')!.textContent!));
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.turn-assistant')].some((turn) =>
        turn.textContent?.includes('The module parses YAML.'),
      ),
    );
    // A pause of a sub-agent's model is not the lead's: the pill does not say the lead paused.
    await deliver(page, [
      {
        type: 'agent_events',
        events: [
          {
            ...agentEvent({ type: 'model_call', state: 'stalled', ...call, silentMs: 30_000 }, 'sub-1'),
            time: Date.now(),
          },
        ],
      },
    ]);
    await deliver(page, [eventsNow({ type: 'done', stopReason: 'end_turn', turns: 1 })]);
    await page.waitForFunction(() => document.getElementById('activity')!.hidden);
  });

  it('offers Stop from the moment a prompt is sent; stopped before its run began, the prompt comes back', async () => {
    const page = pages.page;
    const input = page.locator('#prompt textarea');
    assert.equal(await page.locator('#stop').isVisible(), false);
    await input.pressSequentially('a prompt the host is still setting up');
    await input.press('Enter');
    // No event yet (the host waits on an MCP server, the policy, a prompt hook): Stop is there.
    await page.locator('#stop').waitFor({ state: 'visible' });
    await page.locator('#stop').click();
    const posted = (await postedByWebview(page)) as Array<{ type: string; requestId?: string }>;
    assert.ok(
      posted.some((message) => message.type === 'run_stop'),
      JSON.stringify(posted),
    );
    const submitted = posted.find((message) => message.type === 'prompt_submit')!;
    // The host's answer: stopped before the run began.
    await deliver(page, [
      {
        type: 'prompt_result',
        requestId: submitted.requestId,
        problem: 'Stopped before the agent began: the prompt was not sent.',
      },
    ]);
    await page.locator('#stop').waitFor({ state: 'hidden' });
    assert.equal(await input.inputValue(), 'a prompt the host is still setting up');
  });

  it('a prompt accepted by the host keeps Stop until its run ends, even when a hook blocks it', async () => {
    const page = pages.page;
    const input = page.locator('#prompt textarea');
    await input.pressSequentially('checked by a hook');
    await input.press('Enter');
    const posted = (await postedByWebview(page)) as Array<{ type: string; requestId?: string }>;
    const submitted = posted.find((message) => message.type === 'prompt_submit')!;
    await deliver(page, [{ type: 'prompt_result', requestId: submitted.requestId }]);
    // Accepted: the run is starting (the hook decides), Stop stays.
    assert.equal(await page.locator('#stop').isVisible(), true);
    await deliver(page, [
      eventsNow({ type: 'error', kind: 'hook', message: 'The prompt was blocked by a hook: mentions a secret' }),
    ]);
    await page.locator('#stop').waitFor({ state: 'hidden' });
  });
});
