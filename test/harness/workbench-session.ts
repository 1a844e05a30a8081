/**
 * One code-server + headless Chromium session for the editor tests: a fresh user-data and
 * extensions folder, a copy of a sample workspace, and the logs kept for failures.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import { startCodeServer, type CodeServerEdition, type RunningCodeServer } from './code-server';
import { PATIENCE_MS } from './patience';

export const projectRoot = path.resolve(__dirname, '..', '..');

export interface WorkbenchSessionOptions {
  /** A folder under test/fixtures/workspaces to copy and open. */
  workspace: string;
  settings?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  workspaceTrust?: boolean;
  /** Which VS Code (the one OPENAGENT_VSCODE selects otherwise). */
  edition?: CodeServerEdition;
  /**
   * Runs before code-server starts, e.g. to install a .vsix into the extensions folder or to
   * adjust the workspace copy.
   */
  prepare?: (dirs: { userDataDir: string; extensionsDir: string; workspaceDir: string }) => void;
}

export class WorkbenchSession {
  private constructor(
    readonly root: string,
    readonly workspaceDir: string,
    readonly userDataDir: string,
    readonly server: RunningCodeServer,
    readonly browser: Browser,
    readonly logFile: string,
  ) {}

  static async start(options: WorkbenchSessionOptions): Promise<WorkbenchSession> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-workbench-'));
    const workspaceDir = path.join(root, 'workspace');
    fs.cpSync(path.join(projectRoot, 'test', 'fixtures', 'workspaces', options.workspace), workspaceDir, {
      recursive: true,
    });
    const userDataDir = path.join(root, 'user-data');
    const extensionsDir = path.join(root, 'extensions');
    fs.mkdirSync(extensionsDir, { recursive: true });
    options.prepare?.({ userDataDir, extensionsDir, workspaceDir });
    const logFile = path.join(root, 'code-server.log');
    const server = await startCodeServer({
      folder: workspaceDir,
      userDataDir,
      extensionsDir,
      workspaceTrust: options.workspaceTrust,
      settings: options.settings,
      env: options.env,
      logFile,
      edition: options.edition,
    });
    let browser: Browser;
    try {
      browser = await launchChromium();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return new WorkbenchSession(root, workspaceDir, userDataDir, server, browser, logFile);
  }

  /**
   * Changes one user setting while the editor runs. VS Code watches the file, so the change
   * reaches the extension a moment later: wait for its effect before relying on it.
   */
  async writeUserSetting(key: string, value: unknown): Promise<void> {
    const file = path.join(this.userDataDir, 'User', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    settings[key] = value;
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
  }

  /** A workbench page; whatever a test waits for on it (or its webviews) gets a generous deadline. */
  async openPage(query: string): Promise<Page> {
    const page = await this.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(PATIENCE_MS);
    await page.goto(`${this.server.url}/?${query}`);
    return page;
  }

  /** The end of code-server's log and of every extension host log, for a failure report. */
  diagnostics(maxChars = 6_000): string {
    const parts = [`--- code-server log (${this.logFile}) ---\n${tail(this.logFile, maxChars)}`];
    for (const file of findFiles(path.join(this.userDataDir, 'logs'), /exthost|remoteexthost/i)) {
      parts.push(`--- ${file} ---\n${tail(file, maxChars)}`);
    }
    return parts.join('\n');
  }

  async stop(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    await this.server.stop();
  }
}

function tail(file: string, maxChars: number): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.length > maxChars ? text.slice(-maxChars) : text;
  } catch {
    return '(missing)';
  }
}

function findFiles(dir: string, pattern: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => pattern.test(name) && name.endsWith('.log'))
    .map((name) => path.join(dir, name));
}

export function summaryLine(passed: number, failed: number, pending = 0): string {
  return `${passed} passed, ${failed} failed${pending > 0 ? `, ${pending} skipped` : ''}`;
}
