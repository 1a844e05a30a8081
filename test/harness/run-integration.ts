/**
 * `npm run test:integration`: runs the in-editor mocha suites inside the real VS Code extension
 * host of code-server, its workbench open in headless Chromium, one fresh editor session per
 * suite, one after the other — on each VS Code the tests know (code-server-editions.ts: our
 * declared minimum 1.100.3, and the newest; OPENAGENT_VSCODE=minimum|newest runs one):
 *  - test/integration on a copy of the 'sample' folder, Workspace Trust off (so it is trusted);
 *  - test/integration-untrusted on a copy of the 'untrusted' folder with Workspace Trust on and
 *    a fresh user-data folder, so nothing has trusted the folder (SPEC 4.2).
 * Prints each test, each suite's counts and a closing "N passed, N failed" line; fails on a
 * failure, a missing result or a hang. OPENAGENT_INTEGRATION_SUITES=integration-untrusted
 * (comma-separated folder names) runs only those suites.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { PgTeamStore } from '../../src/team/pg-team-store';
import { PgTeamApprovals } from '../../src/team/pg-team-approvals';
import { initTeamDatabase, startPostgres } from './postgres';
import { CHAT_DRIVER_ENV, startChatDriver } from './chat-driver';
import { PATIENCE_MS } from './patience';
import { NO_RESULTS, reportSuiteResults, type SuiteTally } from './suite-report';
import { projectRoot, summaryLine, WorkbenchSession } from './workbench-session';
import { EDITIONS, editionTitle, selectedEdition, type CodeServerEdition } from './code-server';

/** For a whole suite: it only ends a hang (each wait inside has its own deadline, see patience.ts). */
const TIMEOUT_MS = Number(process.env.OPENAGENT_INTEGRATION_TIMEOUT_MS ?? 45 * 60_000);

interface IntegrationSuite {
  title: string;
  /** The suite's folder under test/, built to out/test/<folder> by "node esbuild.mjs --tests". */
  folder: string;
  /** The folder under test/fixtures/workspaces it runs on (a fresh copy). */
  workspace: string;
  workspaceTrust: boolean;
  /** Other extensions loaded beside OpenAgent (folders under the project), e.g. one using its API. */
  extraExtensions?: string[];
  /** Starts what the suite needs beside the editor. */
  setUp?: () => Promise<SuiteSetUp>;
}

interface SuiteSetUp {
  /** User settings, written before the editor starts. */
  settings?: Record<string, unknown>;
  /** For code-server, hence for the extension host and the suite. */
  env?: NodeJS.ProcessEnv;
  /** Adjusts the copy of the workspace before the editor opens it. */
  prepareWorkspace?: (workspaceDir: string) => void;
  tearDown(): Promise<void>;
}

const SUITES: IntegrationSuite[] = [
  {
    title: 'trusted folder',
    folder: 'integration',
    workspace: 'sample',
    workspaceTrust: false,
    extraExtensions: ['test/fixtures/extensions/api-client'],
    setUp: keylessModelServer,
  },
  {
    title: 'untrusted folder (Workspace Trust on)',
    folder: 'integration-untrusted',
    workspace: 'untrusted',
    workspaceTrust: true,
    setUp: userAndWorkspaceModelServers,
  },
  {
    title: 'with a team database (PostgreSQL)',
    folder: 'integration-team',
    workspace: 'sample',
    workspaceTrust: false,
    setUp: teamDatabase,
  },
  {
    title: 'sessions side by side in a git repository',
    folder: 'integration-sessions',
    workspace: 'sample',
    workspaceTrust: false,
    setUp: gitRepositoryWithModelServer,
  },
  {
    title: "VS Code's models and other extensions' tools",
    folder: 'integration-lm',
    workspace: 'sample',
    workspaceTrust: false,
    extraExtensions: ['test/fixtures/extensions/lm-provider'],
    setUp: modelServerWithKey,
  },
];

/** A fake model server the user settings name, with its key in the environment. */
async function modelServerWithKey(): Promise<SuiteSetUp> {
  const server = await FakeModelServer.start();
  return {
    settings: {
      'openagent.provider': 'anthropic',
      'openagent.model': 'fake-model',
      'openagent.baseUrl': server.anthropicBaseUrl,
    },
    env: { ANTHROPIC_API_KEY: 'sk-ant-Lm4vQ8zR2pXw7Kd9', OPENAGENT_TEST_MODEL: server.anthropicBaseUrl },
    tearDown: () => server.close(),
  };
}

/**
 * The sample folder as a git repository with one commit, a fake model server the user settings
 * name (and a key), and worktrees made in a folder of their own outside the workspace.
 */
async function gitRepositoryWithModelServer(): Promise<SuiteSetUp> {
  const server = await FakeModelServer.start();
  const worktrees = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-session-worktrees-'));
  return {
    settings: {
      'openagent.provider': 'anthropic',
      'openagent.model': 'fake-model',
      'openagent.baseUrl': server.anthropicBaseUrl,
      'openagent.worktreesFolder': worktrees,
      'git.autoRepositoryDetection': false,
      // Commands run without asking, so the three sessions' write approvals are the toasts on screen.
      'openagent.policy': { approvals: { auto_approve: ['bash'] } },
    },
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-Qx7vR2mZ9pLw4Kd8Tj3N',
      OPENAGENT_TEST_MODEL: server.anthropicBaseUrl,
      OPENAGENT_TEST_WORKTREES: worktrees,
    },
    prepareWorkspace: (workspaceDir) => {
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], {
          cwd: workspaceDir,
          stdio: 'ignore',
        });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'The sample project');
    },
    tearDown: async () => {
      await server.close();
      fs.rmSync(worktrees, { recursive: true, force: true });
    },
  };
}

/**
 * A real PostgreSQL with the team schema and a team policy that denies writing files and one
 * command, a member login for the suite to give "Set Team Database", and user settings and a
 * workspace policy that both try to allow and auto-approve what the team denies.
 */
async function teamDatabase(): Promise<SuiteSetUp> {
  const server = await FakeModelServer.start();
  const postgres = await startPostgres();
  try {
    await initTeamDatabase(postgres.url);
    const admin = new PgTeamStore(postgres.url);
    try {
      await admin.setPolicy(
        'tools:\n  deny: [write_file]\n  bash:\n    deny: ["echo team-denied*"]\nbudget:\n  team_daily_usd: 100\n' +
          // Named approvers (issue 37): a push waits for the editor's member or bob, whoever did not ask.
          'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [dev@example.com, bob@corp]\n      timeout: 30m\n',
        'lead@example.com',
      );
    } finally {
      await admin.close();
    }
    const member = await postgres.createMember('editor_member');
    const bob = await postgres.createMember('bob_member');
    const directory = new PgTeamApprovals(postgres.url);
    try {
      await directory.setMember({ email: 'dev@example.com', login: 'editor_member', groups: [] });
      await directory.setMember({ email: 'bob@corp', login: 'bob_member', groups: [] });
    } finally {
      await directory.close();
    }
    return {
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': 'fake-model',
        'openagent.baseUrl': server.anthropicBaseUrl,
        'openagent.team.member': 'dev@example.com',
        'openagent.policy': {
          tools: { allow: ['*'], bash: { allow: ['echo team-denied*'] } },
          approvals: { auto_approve: ['write_file', 'bash'] },
        },
      },
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-integration-team-key',
        OPENAGENT_TEAM_DATABASE_URL: undefined,
        OPENAGENT_TEST_MODEL: server.anthropicBaseUrl,
        OPENAGENT_TEST_TEAM_MEMBER_URL: member,
        OPENAGENT_TEST_TEAM_BOB_URL: bob,
        OPENAGENT_TEST_TEAM_ADMIN_URL: postgres.url,
      },
      prepareWorkspace: (workspaceDir) => {
        fs.mkdirSync(path.join(workspaceDir, '.openagent'), { recursive: true });
        fs.writeFileSync(
          path.join(workspaceDir, '.openagent', 'agent.yaml'),
          'tools:\n  allow: [read_file, write_file, bash]\n  bash:\n    allow: ["echo team-denied*"]\napprovals:\n  auto_approve: [write_file, bash]\n',
        );
      },
      tearDown: async () => {
        await Promise.all([server.close(), postgres.dispose()]);
      },
    };
  } catch (error) {
    await Promise.all([server.close(), postgres.dispose()]);
    throw error;
  }
}

/**
 * A fake model server the user settings name, with no API key anywhere: the suite sets one
 * with "Set API Key" and proves the model calls carry it.
 */
async function keylessModelServer(): Promise<SuiteSetUp> {
  const server = await FakeModelServer.start();
  return {
    settings: {
      'openagent.provider': 'anthropic',
      'openagent.model': 'fake-model',
      'openagent.baseUrl': server.anthropicBaseUrl,
    },
    env: {
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      OPENAGENT_API_KEY: undefined,
      OPENAGENT_TEST_MODEL: server.anthropicBaseUrl,
    },
    tearDown: () => server.close(),
  };
}

/**
 * Two fake model servers: the one the user settings name, where conversations must go, and the
 * one the untrusted folder's .vscode/settings.json names, which must hear nothing. The suite
 * scripts and reads both through their control endpoints.
 */
async function userAndWorkspaceModelServers(): Promise<SuiteSetUp> {
  const user = await FakeModelServer.start();
  const workspace = await FakeModelServer.start({
    scenario: { name: 'workspace-level endpoint', turns: [], whenExhausted: 'echo' },
  });
  return {
    settings: {
      // Nothing trusts the folder and no "Do you trust the authors?" dialog covers the chat
      // while the launcher types into it: the folder stays in Restricted Mode.
      'security.workspace.trust.startupPrompt': 'never',
      'openagent.provider': 'anthropic',
      'openagent.model': 'user-model',
      'openagent.baseUrl': user.anthropicBaseUrl,
    },
    env: {
      // A key for either provider, so a request goes out whichever provider the extension picks.
      ANTHROPIC_API_KEY: 'sk-ant-integration-user-key',
      OPENAI_API_KEY: 'sk-openai-integration-key',
      OPENAGENT_API_KEY: undefined,
      OPENAGENT_TEST_USER_MODEL: user.anthropicBaseUrl,
      OPENAGENT_TEST_WORKSPACE_MODEL: workspace.anthropicBaseUrl,
    },
    prepareWorkspace: (workspaceDir) => {
      const file = path.join(workspaceDir, '.vscode', 'settings.json');
      const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      settings['openagent.baseUrl'] = workspace.openAiBaseUrl;
      fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    },
    tearDown: async () => {
      await Promise.all([user.close(), workspace.close()]);
    },
  };
}

async function main(): Promise<number> {
  if (!fs.existsSync(path.join(projectRoot, 'dist', 'extension.js')))
    throw new Error('dist/extension.js is missing: run "npm run build" first');
  const only = process.env.OPENAGENT_INTEGRATION_SUITES?.split(',').map((name) => name.trim());
  const suites = SUITES.filter((suite) => !only || only.includes(suite.folder));
  if (suites.length === 0) throw new Error(`no suite named ${only?.join(', ')}`);

  const runs: Array<{ suite: IntegrationSuite; edition: CodeServerEdition; tally: SuiteTally }> = [];
  for (const edition of editionsToRun())
    for (const suite of suites) runs.push({ suite, edition, tally: await runSuite(suite, edition) });

  const total = runs
    .map((run) => run.tally)
    .reduce((sum, tally) => ({
      passed: sum.passed + tally.passed,
      failed: sum.failed + tally.failed,
      pending: sum.pending + tally.pending,
    }));
  console.log('\nIntegration suites:');
  for (const { suite, edition, tally } of runs) {
    console.log(
      `  ${suite.folder} on VS Code ${edition.vscode}: ${summaryLine(tally.passed, tally.failed, tally.pending)}`,
    );
    for (const failure of tally.failures ?? []) console.log(`    ✘ ${failure.slice(0, 1_500)}`);
  }
  console.log(summaryLine(total.passed, total.failed, total.pending));
  return total.failed > 0 ? 1 : 0;
}

/**
 * The VS Code versions to run on: the one OPENAGENT_VSCODE names, else every edition in
 * OPENAGENT_VSCODE_EDITIONS (comma-separated ids; all of them by default).
 */
function editionsToRun(): CodeServerEdition[] {
  if (process.env.OPENAGENT_VSCODE) return [selectedEdition()];
  const ids = (process.env.OPENAGENT_VSCODE_EDITIONS ?? Object.keys(EDITIONS).join(','))
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return ids.map((id) => selectedEdition({ OPENAGENT_VSCODE: id }));
}

/** Runs the suite named by OPENAGENT_TEST_ENTRY inside the extension host once the workbench started. */
const SUITE_RUNNER = 'test/fixtures/extensions/suite-runner';

/** Installs the extension in a project folder into an extensions folder, as a link. */
function linkExtension(folder: string, extensionsDir: string): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot, folder, 'package.json'), 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
  };
  const id = `${manifest.publisher}.${manifest.name}-${manifest.version}`;
  fs.symlinkSync(path.resolve(projectRoot, folder), path.join(extensionsDir, id), 'dir');
}

async function runSuite(suite: IntegrationSuite, edition: CodeServerEdition): Promise<SuiteTally> {
  const testsEntry = path.join(projectRoot, 'out', 'test', suite.folder, 'index.js');
  if (!fs.existsSync(testsEntry))
    throw new Error(`${testsEntry} is missing: build with "node esbuild.mjs --tests" first`);
  const resultsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-results-')), 'results.json');
  let page: Page | undefined;
  const driver = await startChatDriver(() => page);
  const setUp = await suite.setUp?.();
  try {
    const session = await WorkbenchSession.start({
      workspace: suite.workspace,
      workspaceTrust: suite.workspaceTrust,
      edition,
      settings: setUp?.settings,
      // The extension host inherits code-server's environment: that is how the suite learns
      // where to write its results and where the chat driver listens.
      env: {
        ...setUp?.env,
        OPENAGENT_TEST_ENTRY: testsEntry,
        OPENAGENT_TEST_RESULTS: resultsFile,
        [CHAT_DRIVER_ENV]: driver.url,
      },
      prepare: ({ workspaceDir, extensionsDir }) => {
        setUp?.prepareWorkspace?.(workspaceDir);
        // OpenAgent, the suite runner and the suite's other extensions are installed: linked into
        // the fresh extensions folder, which the editor scans when it has no extensions.json yet
        // (a link keeps each extension's require() resolving from the project). Not the test
        // payload (extensionDevelopmentPath, extensionTestsPath): a built VS Code 1.139 honours it
        // only with the smoke-test driver on, which hides every notification toast.
        for (const folder of ['.', SUITE_RUNNER, ...(suite.extraExtensions ?? [])])
          linkExtension(folder, extensionsDir);
      },
    });
    try {
      const started = Date.now();
      page = await session.openPage(`folder=${encodeURIComponent(session.workspaceDir)}`);
      page.on('pageerror', (error) => console.log(`[workbench] page error: ${error.message}`));
      if (!(await waitForResults(session, resultsFile, started))) return NO_RESULTS;
      const heading = `Integration tests inside ${editionTitle(edition)}, ${suite.title}, ${((Date.now() - started) / 1000).toFixed(1)} s`;
      return reportSuiteResults(resultsFile, heading, () => console.log(session.diagnostics()));
    } finally {
      await session.stop();
    }
  } finally {
    await driver.close();
    await setUp?.tearDown();
  }
}

/** Waits for the suite's results file; false (and the logs printed) on a hang or a dead editor. */
async function waitForResults(session: WorkbenchSession, resultsFile: string, started: number): Promise<boolean> {
  while (!fs.existsSync(resultsFile)) {
    const problem =
      Date.now() - started > TIMEOUT_MS
        ? `no results after ${TIMEOUT_MS / 1000} s — the suite hung or the extension host died`
        : session.server.process.exitCode !== null
          ? 'code-server exited before the suite finished'
          : Date.now() - started > 2 * PATIENCE_MS && !fs.existsSync(`${resultsFile}.started`)
            ? `the suite runner did not start within ${(2 * PATIENCE_MS) / 1000} s (not installed, disabled — e.g. in Restricted Mode — or the extension host never came up)`
            : undefined;
    if (problem) {
      console.log(session.diagnostics());
      console.log(`integration: ${problem}`);
      console.log(summaryLine(0, 1));
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // The suite writes the file under another name and renames it: once it exists, it is whole.
  return true;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
