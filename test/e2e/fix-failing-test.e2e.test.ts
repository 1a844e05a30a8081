/**
 * Acceptance: the user asks the agent to fix a failing test in a small Node project. The
 * scripted model (test/fixtures/scenarios/fix-failing-test.json) reads the code, edits it
 * (approved in the notification), runs the tests in the "OpenAgent" terminal (approved too) and
 * reports. Checked as the user meets it: the file on disk and in the editor, the terminal in the
 * panel, the chat, and what the extension sent back to the model.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { loadScenario } from '../fixtures/fake-model-server/scenario';
import { projectRoot, type WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { API_KEY, openChat, screenshot, send, startPackagedSession, toolResultsSent } from './chat-helpers';
import { clickNotificationButton, openFileInEditor, waitForNotification, waitForTerminalText } from './workbench-ui';

const FIXTURE = path.join(projectRoot, 'test', 'fixtures', 'workspaces', 'failing-test');
const PROMPT = 'The sum test fails. Please fix it.';

function readTree(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const relative of fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    const absolute = path.join(root, relative);
    if (fs.statSync(absolute).isFile())
      files.set(relative.split(path.sep).join('/'), fs.readFileSync(absolute, 'utf8'));
  }
  return files;
}

describe('fixing a failing test (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    fake = await FakeModelServer.start({ scenario: loadScenario('fix-failing-test') });
    session = await startPackagedSession({
      workspace: 'failing-test',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': 'fake-model',
        'openagent.baseUrl': fake.anthropicBaseUrl,
        // xterm's DOM renderer, so the terminal's rows can be read from the page.
        'terminal.integrated.gpuAcceleration': 'off',
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  it('reads the code, edits it and runs the tests with approval, then reports', async () => {
    const original = readTree(FIXTURE);
    assert.match(original.get('src/sum.js') ?? '', /return a - b;/, 'the fixture starts with the bug');
    const { page, chat } = await openChat(session);
    try {
      await send(chat, PROMPT);

      const editToast = await waitForNotification(page, 'OpenAgent wants to edit');
      assert.match(await editToast.innerText(), /OpenAgent wants to edit src\/sum\.js\./);
      assert.deepEqual(readTree(session.workspaceDir), original, 'nothing is written before the approval');
      await screenshot(page, 'fix-failing-test-approve-edit.png');
      await clickNotificationButton(editToast, 'Approve');

      const bashToast = await waitForNotification(page, 'OpenAgent wants to run');
      assert.match(await bashToast.innerText(), /OpenAgent wants to run `npm test`\./);
      assert.match(fs.readFileSync(path.join(session.workspaceDir, 'src', 'sum.js'), 'utf8'), /return a \+ b;/);
      await screenshot(page, 'fix-failing-test-approve-bash.png');
      await clickNotificationButton(bashToast, 'Approve');

      // The chat: the user's prompt, each step the model took, and its report.
      await chat.locator('.turn-assistant', { hasText: '0 failures).' }).waitFor();
      assert.equal(await chat.locator('.turn-user').first().innerText(), PROMPT);
      assert.deepEqual(await chat.locator('.turn-assistant, .turn-tool .tool-call').allInnerTexts(), [
        'Let me read the function under test.',
        'read_file src/sum.js',
        'sum subtracts instead of adding. Fixing it.',
        'edit_file src/sum.js',
        'Now the tests.',
        'bash npm test',
        'Fixed: sum subtracted instead of adding. npm test now passes (1 test, 0 failures).',
      ]);
      assert.deepEqual(
        await chat.locator('.turn-tool').evaluateAll((lines) => lines.map((line) => line.getAttribute('data-outcome'))),
        ['ran', 'ran', 'ran'],
      );

      // The file: exactly the one-line fix, on disk and in the editor; every other file as it was.
      const expected = new Map(original);
      expected.set('src/sum.js', (original.get('src/sum.js') ?? '').replace('return a - b;', 'return a + b;'));
      assert.deepEqual(readTree(session.workspaceDir), expected);

      // The terminal the user watched: the OpenAgent terminal, with node's test runner passing.
      const terminal = await waitForTerminalText(page, [/> node --test/, /pass 1/, /fail 0/]);
      assert.equal(terminal.name, 'OpenAgent');
      assert.match(terminal.text, /✔ sum adds two numbers/);
      assert.doesNotMatch(terminal.text, /✖/);

      // What the model was sent back for each tool call, in order.
      assert.equal(fake.modelCalls.length, 4);
      const results = new Map(toolResultsSent(fake.modelCalls[3]).map((result) => [result.tool_use_id, result]));
      assert.match(results.get('toolu_read_sum')?.content ?? '', /3\t {2}return a - b;/);
      assert.equal(results.get('toolu_edit_sum')?.content, 'Edited src/sum.js: 1 replacement.');
      const bash = results.get('toolu_bash_test');
      assert.ok(!bash?.is_error, 'the test run is not an error');
      assert.match(bash?.content ?? '', /pass 1[\s\S]*fail 0[\s\S]*Exit code 0\.$/);
      assert.doesNotMatch(bash?.content ?? '', /shell integration is unavailable/, 'it ran in the terminal');

      const editorText = await openFileInEditor(page, 'src/sum.js');
      assert.match(editorText, /return a \+ b;/);
      await screenshot(page, 'fix-failing-test-done.png');
    } catch (error) {
      await screenshot(page, 'fix-failing-test-failure.png').catch(() => undefined);
      throw new Error(`${String(error)}\n${session.diagnostics()}`, { cause: error });
    } finally {
      await page.close();
    }
  });
});
