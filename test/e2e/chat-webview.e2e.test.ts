/**
 * The built chat webview (dist/webview/chat.js) in plain Chromium, fed host messages as VS Code
 * delivers them: the windowed transcript (few DOM nodes for 5,000 messages, following the end,
 * keeping the reader's place) and every kind of turn with its buttons. Needs `npm run package`
 * (or `node esbuild.mjs`) first, like the other e2e tests.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { AgentEventBody } from '../../src/core/events/events';
import {
  agentEvent as event,
  agentEvents as events,
  countDomNodes,
  deliver,
  frames,
  postedByWebview,
} from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';

/** A conversation of `messages` messages: questions and markdown answers. */
function longConversation(messages: number): AgentEventBody[] {
  const bodies: AgentEventBody[] = [];
  for (let index = 0; index < messages / 2; index++) {
    bodies.push({ type: 'user_message', text: `Question ${index}: how does part ${index} work?` });
    bodies.push({
      type: 'text_delta',
      text: `Answer **${index}**.\n\n- point one\n- point two\n\n\`\`\`ts\nconst x = ${index};\n\`\`\`\n\nDone with ${index}.`,
    });
    bodies.push({ type: 'done', stopReason: 'end_turn', turns: 1 });
  }
  return bodies;
}

function scrollState(page: Page): Promise<{ top: number; height: number; client: number; atEnd: boolean }> {
  return page.evaluate(() => {
    const scroller = document.getElementById('transcript')!;
    return {
      top: scroller.scrollTop,
      height: scroller.scrollHeight,
      client: scroller.clientHeight,
      atEnd: scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 2,
    };
  });
}

/** The first turn whose bottom is below the top of the transcript, and where it is on screen. */
function firstVisibleTurn(page: Page): Promise<{ text: string; top: number }> {
  return page.evaluate(() => {
    const scrollerTop = document.getElementById('transcript')!.getBoundingClientRect().top;
    for (const turn of document.querySelectorAll('.turn')) {
      const box = turn.getBoundingClientRect();
      if (box.bottom > scrollerTop) return { text: turn.textContent!.slice(0, 60), top: box.top };
    }
    throw new Error('no turn visible');
  });
}

describe('chat webview in Chromium (windowed transcript)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({});
  let page: Page;
  beforeEach(() => (page = pages.page));

  it('opens a 5,000-message conversation at its end with few DOM nodes', async () => {
    await deliver(page, [{ type: 'chat_reset' }, events(...longConversation(5_000))]);
    await frames(page, 4);
    const turns = page.locator('.turn');
    assert.ok((await turns.count()) < 40, `${await turns.count()} turns in the DOM`);
    assert.match(await page.locator('.turn-assistant').last().innerText(), /Done with 2499\./);
    assert.equal(await page.locator('.turn-user').last().innerText(), 'Question 2499: how does part 2499 work?');
    const nodes = await countDomNodes(page);
    assert.ok(nodes.nodes < 3_000, `${nodes.nodes} DOM nodes`);
    const scroll = await scrollState(page);
    assert.ok(scroll.atEnd, 'scrolled to the end');
    assert.ok(scroll.height > 100 * scroll.client, 'the scrollbar stands for the whole conversation');

    // The start is one scroll away.
    await page.evaluate(() => (document.getElementById('transcript')!.scrollTop = 0));
    await frames(page, 4);
    assert.equal(await page.locator('.turn-user').first().innerText(), 'Question 0: how does part 0 work?');
    assert.equal((await firstVisibleTurn(page)).text, 'Question 0: how does part 0 work?');
  });

  it('keeps the reader in place when turns above are measured, and does not drift', async () => {
    await deliver(page, [events(...longConversation(5_000))]);
    await frames(page, 4);
    await page.evaluate(() => (document.getElementById('transcript')!.scrollTop = 300_000));
    await frames(page, 4);
    const before = await firstVisibleTurn(page);
    await frames(page, 6);
    assert.deepEqual(await firstVisibleTurn(page), before, 'nothing moves while nobody scrolls');
    // Scrolling up shows (and measures) turns that were estimates: the turn read moves by the scroll, exactly.
    for (let step = 0; step < 5; step++) {
      await page.evaluate(() => document.getElementById('transcript')!.scrollBy(0, -150));
      await frames(page, 2);
    }
    const after = await firstVisibleTurn(page);
    const same = await page.evaluate((text) => {
      const scrollerTop = document.getElementById('transcript')!.getBoundingClientRect().top;
      const turn = [...document.querySelectorAll('.turn')].find((element) => element.textContent!.startsWith(text));
      return turn ? turn.getBoundingClientRect().top - scrollerTop : undefined;
    }, before.text);
    const scrollerTop = await page.evaluate(() => document.getElementById('transcript')!.getBoundingClientRect().top);
    assert.ok(same !== undefined, 'the turn read before is still shown');
    // Within sub-pixel rounding of each scroll position the browser snaps to.
    assert.ok(Math.abs(same - (before.top - scrollerTop) - 750) <= 3, `moved ${same - (before.top - scrollerTop)} px`);
    assert.notEqual(after.text, before.text);
  });

  it('follows a streaming answer at the end; a reader who scrolled up is not moved', async () => {
    await deliver(page, [events(...longConversation(40), { type: 'user_message', text: 'Write a long answer' })]);
    for (let batch = 0; batch < 30; batch++) {
      await deliver(page, [events({ type: 'text_delta', text: `Line ${batch} of the answer, streaming in.\n\n` })]);
      await frames(page, 1);
    }
    await frames(page, 2);
    assert.ok((await scrollState(page)).atEnd, 'at the end while streaming');
    assert.match(await page.locator('.turn-assistant').last().innerText(), /Line 29 of the answer/);

    // Even a few pixels up (a trackpad) leave the end: more text does not pull the reader back.
    await page.evaluate(() => document.getElementById('transcript')!.scrollBy(0, -8));
    await frames(page, 2);
    const nudged = (await scrollState(page)).top;
    await deliver(page, [events({ type: 'text_delta', text: 'More text arrives.\n\n' })]);
    await frames(page, 3);
    assert.equal((await scrollState(page)).top, nudged);

    // The reader scrolls up: more streamed text does not move what they read.
    await page.mouse.move(150, 300);
    await page.mouse.wheel(0, -600);
    await frames(page, 3);
    const reading = await firstVisibleTurn(page);
    const scrolledTop = (await scrollState(page)).top;
    for (let batch = 30; batch < 60; batch++) {
      await deliver(page, [events({ type: 'text_delta', text: `Line ${batch} of the answer, streaming in.\n\n` })]);
      await frames(page, 1);
    }
    await frames(page, 2);
    assert.deepEqual(await firstVisibleTurn(page), reading);
    assert.equal((await scrollState(page)).top, scrolledTop);
    assert.equal((await scrollState(page)).atEnd, false);

    // Back at the end, it follows again.
    await page.evaluate(() => {
      const scroller = document.getElementById('transcript')!;
      scroller.scrollTop = scroller.scrollHeight;
    });
    await frames(page, 2);
    await deliver(page, [
      events({ type: 'text_delta', text: 'The very end.' }, { type: 'done', stopReason: 'end_turn', turns: 1 }),
    ]);
    await frames(page, 3);
    assert.ok((await scrollState(page)).atEnd);
    assert.match(
      await page.locator('.turn-assistant').last().innerText(),
      /Line 59 of the answer[\s\S]*The very end\.$/,
    );
  });

  it('renders a streamed answer as the same markdown as the whole text', async () => {
    const answer =
      'Hello from the **fake model**!\n\n1. one\n\n2. two\n\n```js\nconst a = 1;\n```\nafter\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<b>bold</b> ![x](https://evil.example/x.png)';
    // Without and with a link reference defined after its use (rendered whole once finished).
    for (const text of [answer, `${answer}\n\nsee [docs][d]\n\n[d]: https://example.com`]) {
      await deliver(page, [{ type: 'chat_reset' }, events({ type: 'user_message', text: 'hi' })]);
      const snapshots: string[] = [];
      for (let index = 0; index < text.length; index += 3) {
        await deliver(page, [events({ type: 'text_delta', text: text.slice(index, index + 3) })]);
        if (index % 12 === 0) {
          await frames(page, 1);
          snapshots.push(await page.locator('.turn-assistant').last().innerHTML());
        }
      }
      await deliver(page, [events({ type: 'done', stopReason: 'end_turn', turns: 1 })]);
      await frames(page, 2);
      const streamed = await page.locator('.turn-assistant').last().innerHTML();
      assert.ok(new Set(snapshots).size > 10, 'the answer showed while it streamed');
      await deliver(page, [
        { type: 'chat_reset' },
        events({ type: 'text_delta', text }, { type: 'done', stopReason: 'end_turn', turns: 1 }),
      ]);
      await frames(page, 2);
      assert.equal(streamed, await page.locator('.turn-assistant').last().innerHTML());
      assert.equal(await page.locator('.turn-assistant li p').count(), 2, 'a loose list stays one list');
      assert.equal(await page.locator('.turn-assistant img').count(), 0);
    }
    assert.equal(await page.locator('.turn-assistant a[href="https://example.com"]').count(), 1);
  });

  it('shows tool lines, status lines, errors and notices with their buttons, and the activity pill', async () => {
    await deliver(page, [
      events(
        { type: 'user_message', text: 'Fix it', attachments: ['@file:src/a.ts', '@problems'] },
        { type: 'plan_mode', active: true, reason: 'user' },
        { type: 'text_delta', text: 'Let me look.' },
        { type: 'tool_call', toolCallId: 't1', toolName: 'read_file', input: { path: 'src/a.ts' } },
      ),
    ]);
    await frames(page);
    const activity = page.locator('#activity');
    assert.equal(await activity.isVisible(), true);
    assert.equal(await activity.innerText(), 'Using read_file…');
    // Until the model answers, the pill counts the seconds (a CPU model can read its context for long).
    // Sent three seconds ago: the pill counts from when the request went out.
    const waiting = { ...event({ type: 'model_call', state: 'waiting', provider: 'llamacpp', model: 'qwen3-coder' }) };
    waiting.time = Date.now() - 3_000;
    await deliver(page, [{ type: 'agent_events', events: [waiting] }]);
    await page.waitForFunction(() =>
      /^Waiting for qwen3-coder… ([3-9]|[1-9]\d+) s$/.test(document.querySelector('#activity')?.textContent ?? ''),
    );
    await deliver(page, [
      events({ type: 'model_call', state: 'answering', provider: 'llamacpp', model: 'qwen3-coder' }),
    ]);
    await frames(page);
    assert.equal(await activity.innerText(), 'Thinking…');
    assert.equal(await page.locator('#stop').isVisible(), true);
    await deliver(page, [
      events(
        { type: 'tool_result', toolCallId: 't1', toolName: 'read_file', output: 'x', isError: false, durationMs: 1 },
        { type: 'text_delta', text: 'Fixed.' },
        {
          type: 'files_changed',
          turn: 1,
          files: [
            { path: 'src/a.ts', change: 'modified' },
            { path: 'src/b.ts', change: 'created' },
          ],
        },
        { type: 'background_result', jobId: 'j1', command: 'npm run watch', output: '', exitCode: 0 },
        { type: 'error', message: 'The server refused the key.', kind: 'authentication' },
      ),
    ]);
    await frames(page);
    assert.equal(await activity.isVisible(), false);
    assert.deepEqual(await page.locator('.turn-user .attachment').allInnerTexts(), ['@file:src/a.ts', '@problems']);
    assert.deepEqual(await page.locator('.turn').allInnerTexts(), [
      'Fix it\n@file:src/a.ts\n@problems',
      'Plan mode is on: the agent reads and plans, and changes nothing until you approve its plan.',
      'Let me look.',
      'read_file src/a.ts\n✓Ran · x',
      // The run ended in an error after this answer: the answer says so.
      'Fixed.\n\nInterrupted · An error ended the run (below).',
      'Changed 2 files:\n\nsrc/a.ts Open Diff\nsrc/b.ts (new) Open Diff\nRevert This Turn',
      'Background job j1 (npm run watch) exited with code 0.',
      'The server refused the key.\n\nSet API KeyRetry',
    ]);
    assert.deepEqual(await page.locator('.turn-error vscode-button').allInnerTexts(), ['Set API Key', 'Retry']);
    await page.locator('.turn-error vscode-button', { hasText: 'Set API Key' }).click();
    await page.locator('.turn-files .open-diff').first().click();
    await page.locator('.turn-files vscode-button', { hasText: 'Revert This Turn' }).click();
    const posted = await postedByWebview(page);
    assert.deepEqual(posted.slice(-3), [
      { type: 'action_invoke', action: 'set_api_key' },
      { type: 'turn_diff_open', turn: 1, path: 'src/a.ts' },
      { type: 'turn_revert', turn: 1 },
    ]);

    await deliver(page, [
      events({ type: 'turn_reverted', turn: 1, restored: ['src/a.ts'], deleted: ['src/b.ts'], failed: [] }),
      {
        type: 'chat_notice',
        level: 'warning',
        text: 'Set a key first.',
        actions: [{ action: 'open_settings', label: 'Open Settings' }],
      },
    ]);
    await frames(page);
    const files = page.locator('.turn-files');
    assert.equal(await files.locator('vscode-button').count(), 0, 'a reverted turn offers no revert');
    assert.equal(await files.locator('.turn-files-reverted').innerText(), 'Reverted: src/a.ts, src/b.ts deleted.');
    assert.equal(await page.locator('.notice').innerText(), 'Set a key first.\n\nOpen Settings');
    await page.locator('.notice vscode-button').click();
    assert.deepEqual((await postedByWebview(page)).at(-1), { type: 'action_invoke', action: 'open_settings' });

    await deliver(page, [{ type: 'chat_reset' }]);
    await frames(page);
    assert.equal(await page.locator('.turn').count(), 0);
    assert.equal(await page.locator('.notice').count(), 0);
  });
});
