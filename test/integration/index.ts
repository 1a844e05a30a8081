/**
 * Runs inside the real VS Code extension host (loaded through the extensionTestsPath of the
 * workbench payload). Executes every *.test.js beside it with mocha and writes the results to
 * the file the launcher waits for; the launcher prints them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { TEST_TIMEOUT_MS } from '../harness/patience';

export interface SuiteResults {
  passed: number;
  failed: number;
  pending: number;
  tests: Array<{ title: string; state: 'passed' | 'failed' | 'pending'; durationMs: number; error?: string }>;
}

export async function run(): Promise<void> {
  const resultsFile = process.env.OPENAGENT_TEST_RESULTS;
  const mocha = new Mocha({ ui: 'bdd', timeout: TEST_TIMEOUT_MS, color: false, reporter: 'dot' });
  const grep = process.env.OPENAGENT_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of fs
    .readdirSync(__dirname)
    .filter((name) => name.endsWith('.test.js'))
    .sort()) {
    mocha.addFile(path.join(__dirname, file));
  }
  const results: SuiteResults = { passed: 0, failed: 0, pending: 0, tests: [] };
  // A failed test's report says what the workbench showed at that moment (the launcher reads it).
  mocha.suite.afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    const entry = results.tests.findLast((test) => test.title === this.currentTest?.fullTitle());
    if (entry) entry.error = `${entry.error ?? ''}\n--- on screen ---\n${await screenText()}`;
  });
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', (test) => {
      results.passed++;
      results.tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 });
    });
    runner.on('fail', (test, error: Error) => {
      results.failed++;
      // Said at once in the editor's log (where the dots go), not only when the suite ends.
      process.stdout.write(`\n✘ ${test.fullTitle()}: ${(error.message ?? '').split('\n')[0]?.slice(0, 300)}\n`);
      results.tests.push({
        title: test.fullTitle(),
        state: 'failed',
        durationMs: test.duration ?? 0,
        error: error.stack ?? error.message,
      });
    });
    runner.on('pending', (test) => {
      results.pending++;
      results.tests.push({ title: test.fullTitle(), state: 'pending', durationMs: 0 });
    });
  });
  // Written beside and renamed: the launcher, which waits for the file, never reads half of it.
  if (resultsFile) {
    fs.writeFileSync(`${resultsFile}.partial`, JSON.stringify(results, null, 2));
    fs.renameSync(`${resultsFile}.partial`, resultsFile);
  }
  if (results.failed > 0) throw new Error(`${results.failed} integration test(s) failed`);
}

async function screenText(): Promise<string> {
  const driver = process.env.OPENAGENT_TEST_DRIVER;
  if (!driver) return '(no launcher to ask)';
  try {
    const response = await fetch(`${driver}/screen`, { method: 'POST', signal: AbortSignal.timeout(30_000) });
    return await response.text();
  } catch (error) {
    return `(the launcher did not say: ${error instanceof Error ? error.message : String(error)})`;
  }
}
