/**
 * The packaged .vsix, installed into a real VS Code (code-server) and driven through its UI in
 * Chromium: open the OpenAgent sidebar, send a prompt, watch the fake model's answer stream in.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { loadScenario } from '../fixtures/fake-model-server/scenario';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { API_KEY, openChat, screenshot, send, startPackagedSession, toolResultsSent } from './chat-helpers';
import { clickNotificationButton, waitForNotification } from './workbench-ui';

/** Finds `name` under `root` whose content matches `pattern`, waiting for writes to land. */
function waitForFile(root: string, name: string, pattern: RegExp): Promise<string> {
  return waitUntil(
    () => {
      for (const relative of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
        if (path.basename(relative) !== name) continue;
        const text = fs.readFileSync(path.join(root, relative), 'utf8');
        if (pattern.test(text)) return text;
      }
      return undefined;
    },
    `a ${name} under ${root} matching ${pattern}`,
    undefined,
    250,
  );
}

describe('chat in the sidebar (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  // One fake model server for every session of this file, named in the settings they start
  // with: a setting changed while the editor runs reaches it a moment later (the file watcher,
  // slow on a loaded machine), so a per-test server's URL could miss the next prompt.
  let fake: FakeModelServer;
  before(async () => {
    fake = await FakeModelServer.start();
  });
  after(() => fake?.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setScenario(loadScenario('hello'));
  });

  describe('with an Anthropic key in the environment', () => {
    let session: WorkbenchSession;
    before(async () => {
      session = await startPackagedSession({
        workspace: 'sample',
        settings: {
          'openagent.provider': 'anthropic',
          'openagent.model': 'fake-model',
          'openagent.baseUrl': fake.anthropicBaseUrl,
        },
        env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
      });
    });
    after(() => session?.stop());

    it('streams the answer to "hello" into the chat as rendered markdown', async () => {
      const { page, chat } = await openChat(session);
      await send(chat, 'hello');
      const answer = chat.locator('.turn-assistant').first();
      await answer.locator('li').nth(1).waitFor();
      assert.match(await answer.innerText(), /Hello from the fake model! I streamed this answer in small deltas\./);
      assert.equal(await answer.locator('strong').innerText(), 'fake model');
      assert.equal(await chat.locator('.turn-user').first().innerText(), 'hello');
      await screenshot(page, 'chat-hello.png');

      const [request] = fake.modelCalls;
      assert.equal(request?.protocol, 'anthropic');
      assert.match(String(request?.headers['x-api-key'] ?? request?.headers.authorization), new RegExp(`${API_KEY}$`));
      const body = request?.body as {
        model: string;
        stream: boolean;
        messages: Array<{ content: Array<{ text: string }> }>;
      };
      assert.equal(body.model, 'fake-model');
      assert.equal(body.stream, true);
      assert.equal(body.messages[0]?.content[0]?.text, 'hello');

      // The conversation is kept in the store in the extension's global storage.
      const journal = await waitForFile(session.userDataDir, 'store.journal', /Hello from the/);
      assert.match(journal, /"title":"hello"/);
      await page.close();
    });

    it('lets the agent read a workspace file with a tool and answer from it', async () => {
      fake.setScenario({
        name: 'read-greet',
        turns: [
          {
            text: 'Let me look.',
            toolCalls: [{ id: 'toolu_read', name: 'read_file', arguments: { path: 'src/greet.js' } }],
          },
          { text: 'It returns a **greeting** for a name.' },
        ],
      });
      const { page, chat } = await openChat(session);
      await send(chat, 'What does greet do?');
      await chat.locator('.turn-assistant strong', { hasText: 'greeting' }).waitFor();
      // The window's chat comes back in this new page when the first test's was kept in time (a
      // race with that page closing): this exchange is what follows it.
      const shown = await chat.locator('.turn-assistant, .turn-tool .tool-call').allInnerTexts();
      assert.deepEqual(shown.slice(-3), [
        'Let me look.',
        'read_file src/greet.js',
        'It returns a greeting for a name.',
      ]);
      assert.equal(await chat.locator('.turn-tool').getAttribute('data-outcome'), 'ran');
      const [result] = toolResultsSent(fake.modelCalls[1]);
      assert.match(String(result?.content), /2\tfunction greet\(name\) \{/);
      await screenshot(page, 'chat-read-file.png');
      await page.close();
    });

    it('asks before writing: Approve in the notification writes the file, Deny leaves it alone', async () => {
      fake.setScenario({
        name: 'approve-then-deny',
        turns: [
          {
            toolCalls: [
              { id: 'toolu_w1', name: 'write_file', arguments: { path: 'notes/approved.md', content: '# Approved\n' } },
            ],
          },
          { text: 'Written.' },
          {
            match: 'another',
            toolCalls: [{ id: 'toolu_w2', name: 'write_file', arguments: { path: 'notes/denied.md', content: 'no' } }],
          },
          { text: 'Understood, I left it alone.' },
        ],
      });
      const { page, chat } = await openChat(session);
      await send(chat, 'write a note');
      const toast = await waitForNotification(page, 'OpenAgent wants to write notes/approved.md');
      await screenshot(page, 'approval-notification.png');
      await clickNotificationButton(toast, 'Approve');
      await chat.locator('.turn-assistant', { hasText: 'Written.' }).waitFor();
      assert.equal(fs.readFileSync(path.join(session.workspaceDir, 'notes', 'approved.md'), 'utf8'), '# Approved\n');

      await send(chat, 'write another');
      const second = await waitForNotification(page, 'OpenAgent wants to write notes/denied.md');
      await clickNotificationButton(second, 'Deny');
      await chat.locator('.turn-assistant', { hasText: 'I left it alone' }).waitFor();
      assert.equal(fs.existsSync(path.join(session.workspaceDir, 'notes', 'denied.md')), false);
      assert.match(JSON.stringify(fake.modelCalls.at(-1)?.body), /User denied this tool call/);
      await page.close();
    });

    it('runs an approved command in the OpenAgent terminal and gives the model its output', async () => {
      fake.setScenario({
        name: 'bash',
        turns: [
          { toolCalls: [{ id: 'toolu_bash', name: 'bash', arguments: { command: 'echo probe-$((6*7))' } }] },
          { text: 'The command printed probe-42.' },
        ],
      });
      const { page, chat } = await openChat(session);
      await send(chat, 'run the probe');
      const toast = await waitForNotification(page, 'OpenAgent wants to run');
      await clickNotificationButton(toast, 'Approve');
      await chat.locator('.turn-assistant', { hasText: 'printed probe-42' }).waitFor();
      const sent = JSON.stringify(fake.modelCalls.at(-1)?.body);
      assert.match(sent, /probe-42[^"]*Exit code 0\./);
      assert.doesNotMatch(sent, /shell integration is unavailable/, 'it ran in the terminal, not the fallback');
      await screenshot(page, 'bash-in-terminal.png');
      await page.close();
    });

    it('renders hostile model output without loading anything from outside', async () => {
      const exfil = `${fake.anthropicBaseUrl}/exfil`;
      fake.setScenario({
        name: 'hostile',
        turns: [
          {
            text:
              `Here: ![x](${exfil}?q=SECRET) <img src="${exfil}?img=1"> <img srcset="${exfil}?srcset=1 2x">` +
              `<iframe src="${exfil}?frame=1"></iframe><div style="background:url(${exfil}?css=1)">styled</div> done.`,
          },
        ],
      });
      const { page, chat } = await openChat(session);
      const outbound: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/exfil')) outbound.push(request.url());
      });
      await send(chat, 'show me');
      const answer = chat.locator('.turn-assistant').last();
      await answer.filter({ hasText: 'done.' }).waitFor();
      await page.waitForTimeout(500);
      assert.equal(await answer.locator('img, iframe, [style]').count(), 0);
      assert.deepEqual(outbound, []);
      assert.deepEqual(
        fake.requests.filter((request) => request.path.startsWith('/exfil')),
        [],
      );
      await screenshot(page, 'chat-hostile-markdown.png');
      await page.close();
    });
  });

  describe('with no key and no endpoint', () => {
    let session: WorkbenchSession;
    before(async () => {
      session = await startPackagedSession({
        workspace: 'sample',
        settings: { 'openagent.baseUrl': fake.anthropicBaseUrl },
        env: { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
      });
    });
    after(() => session?.stop());

    it('says what to do instead of failing silently, and answers once the key is set', async () => {
      const { page, chat } = await openChat(session);
      await send(chat, 'hello');
      const notice = chat.locator('.notice');
      await notice.waitFor();
      assert.match(await notice.innerText(), /needs a model to talk to.*Set your Anthropic API key/s);
      assert.equal(await notice.locator('vscode-button').first().innerText(), 'Set API Key');
      assert.equal(
        await chat.locator('#prompt textarea').inputValue(),
        'hello',
        'the refused prompt is kept for the user',
      );
      await screenshot(page, 'chat-no-key.png');
      assert.equal(fake.modelCalls.length, 0);

      // The fix offered in the chat: a masked input box, then the prompt goes out by itself.
      await notice.locator('vscode-button').first().click();
      const input = page.locator('.quick-input-widget input[type="password"]');
      await input.waitFor();
      await input.fill(API_KEY);
      await input.press('Enter');
      await chat.locator('.turn-assistant li').nth(1).waitFor();
      assert.equal(await chat.locator('#prompt textarea').inputValue(), '', 'the sent prompt left the input');
      assert.match(
        String(fake.modelCalls[0]?.headers['x-api-key'] ?? fake.modelCalls[0]?.headers.authorization),
        new RegExp(`${API_KEY}$`),
      );
      const settingsText = fs.readFileSync(path.join(session.userDataDir, 'User', 'settings.json'), 'utf8');
      assert.ok(!settingsText.includes(API_KEY), 'the key is kept in secret storage, not in settings');
      await screenshot(page, 'chat-after-key-set.png');
      await page.close();
    });
  });
});
