/**
 * `npm run test:integration`: runs the mocha suite in test/integration inside the real VS Code
 * extension host of code-server 4.100.3 (VS Code 1.100.3), its workbench open in headless
 * Chromium. Prints each test and the pass/fail counts; fails on a failure, a missing result
 * or a hang.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { reportSuiteResults } from './suite-report';
import { projectRoot, summaryLine, WorkbenchSession } from './workbench-session';

const TIMEOUT_MS = Number(process.env.OPENAGENT_INTEGRATION_TIMEOUT_MS ?? 8 * 60_000);

async function main(): Promise<number> {
  const testsEntry = path.join(projectRoot, 'out', 'test', 'integration', 'index.js');
  if (!fs.existsSync(testsEntry))
    throw new Error(`${testsEntry} is missing: build with "node esbuild.mjs --tests" first`);
  if (!fs.existsSync(path.join(projectRoot, 'dist', 'extension.js')))
    throw new Error('dist/extension.js is missing: run "npm run build" first');

  const resultsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-results-')), 'results.json');
  // The extension host inherits code-server's environment: that is how the suite learns where to write.
  const session = await WorkbenchSession.start({ workspace: 'sample', env: { OPENAGENT_TEST_RESULTS: resultsFile } });
  try {
    return await runSuite(session, resultsFile);
  } finally {
    await session.stop();
  }
}

async function runSuite(session: WorkbenchSession, resultsFile: string): Promise<number> {
  const authority = `127.0.0.1:${session.server.port}`;
  const payload = [
    ['extensionDevelopmentPath', `vscode-remote://${authority}${projectRoot}`],
    [
      'extensionTestsPath',
      `vscode-remote://${authority}${path.join(projectRoot, 'out', 'test', 'integration', 'index.js')}`,
    ],
  ];
  const started = Date.now();
  const page = await session.openPage(
    `folder=${encodeURIComponent(session.workspaceDir)}&payload=${encodeURIComponent(JSON.stringify(payload))}`,
  );
  page.on('pageerror', (error) => console.log(`[workbench] page error: ${error.message}`));

  while (!fs.existsSync(resultsFile)) {
    if (Date.now() - started > TIMEOUT_MS) {
      console.log(session.diagnostics());
      console.log(`integration: no results after ${TIMEOUT_MS / 1000} s — the suite hung or the extension host died`);
      console.log(summaryLine(0, 1));
      return 1;
    }
    if (session.server.process.exitCode !== null) {
      console.log(session.diagnostics());
      console.log('integration: code-server exited before the suite finished');
      console.log(summaryLine(0, 1));
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // The file is written in one call; give the writer a moment to close it.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const heading = `Integration tests inside VS Code 1.100.3 (code-server), ${((Date.now() - started) / 1000).toFixed(1)} s`;
  return reportSuiteResults(resultsFile, heading, () => console.log(session.diagnostics()));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
