/**
 * `npm run test:electron`: the in-editor suite test:integration runs on a trusted folder
 * (test/integration), run in desktop VS Code (Electron) downloaded by @vscode/test-electron — for
 * machines that can reach the VS Code download servers (a developer laptop, a public CI). On
 * Linux without a display, run it under xvfb-run. Offline machines use test:integration
 * (code-server) instead, which also runs the untrusted-folder suite (it drives the workbench
 * with Playwright).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { reportSuiteResults } from './suite-report';
import { projectRoot } from './workbench-session';

async function main(): Promise<number> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-electron-'));
  const workspace = path.join(root, 'workspace');
  fs.cpSync(path.join(projectRoot, 'test', 'fixtures', 'workspaces', 'sample'), workspace, { recursive: true });
  const resultsFile = path.join(root, 'results.json');
  try {
    await runTests({
      version: process.env.OPENAGENT_VSCODE_VERSION ?? '1.100.3',
      extensionDevelopmentPath: projectRoot,
      extensionTestsPath: path.join(projectRoot, 'out', 'test', 'integration', 'index.js'),
      extensionTestsEnv: { OPENAGENT_TEST_RESULTS: resultsFile },
      launchArgs: [
        workspace,
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        `--user-data-dir=${path.join(root, 'user-data')}`,
      ],
    });
  } catch (error) {
    // runTests rejects when the suite fails; the results file says which tests.
    console.log(`test-electron: ${error instanceof Error ? error.message : String(error)}`);
  }
  const tally = reportSuiteResults(resultsFile, 'Integration tests inside desktop VS Code (Electron)');
  return tally.failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
