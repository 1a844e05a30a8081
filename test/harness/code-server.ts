/**
 * Installs and starts code-server 4.100.3 (VS Code 1.100.3) offline, following TESTING.md:
 * the npm package's postinstall downloads things, so scripts stay off and the native modules
 * are rebuilt by hand. The install lives in a git-ignored cache and happens once.
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { checkSystem, findOnPath, type SystemReport } from './system-check';
import { PATIENCE_MS } from './patience';

export const CODE_SERVER_VERSION = '4.100.3';
const projectRoot = path.resolve(__dirname, '..', '..');
const cacheRoot = path.join(projectRoot, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
const codeServerDir = path.join(cacheRoot, 'node_modules', 'code-server');
const vscodeDir = path.join(codeServerDir, 'lib', 'vscode');
const doneMarker = path.join(cacheRoot, '.install-complete');

function run(command: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): void {
  execFileSync(command, args, {
    cwd,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, npm_config_yes: 'true', ...extraEnv },
  });
}

function symlinkIfMissing(target: string, linkPath: string): void {
  try {
    fs.lstatSync(linkPath);
    return;
  } catch {
    fs.mkdirSync(path.dirname(linkPath), { recursive: true });
    fs.symlinkSync(target, linkPath);
  }
}

/**
 * The native modules of VS Code's server, and what each is for. Only node-pty is needed to
 * serve the editor and run a terminal: VS Code loads the others in a try/catch (spdlog: log
 * files; native-watchdog: a faster exit when the window's process dies, with a polling
 * fallback) or only on use (kerberos: sign-in to a Kerberos proxy). @parcel/watcher (file
 * watching) ships prebuilt binaries, so its rebuild only checks them.
 */
const NATIVE_MODULES: Array<{ name: string; required: boolean; without: string; needs?: string }> = [
  { name: 'node-pty', required: true, without: 'terminals' },
  { name: '@parcel/watcher', required: false, without: 'file watching' },
  { name: '@vscode/spdlog', required: false, without: 'log files' },
  { name: 'native-watchdog', required: false, without: "the extension host's watchdog (a timer stands in)" },
  { name: 'kerberos', required: false, without: 'signing in to Kerberos proxies', needs: 'libkrb5-dev' },
];

/**
 * Rebuilds each native module on its own, so one that cannot build (kerberos without Debian's
 * libkrb5-dev) is skipped with a note instead of ending the install; the build's output goes to
 * a log beside the install, where the note points.
 */
function rebuildNativeModules(): void {
  console.log(`[code-server] building native modules: ${NATIVE_MODULES.map((module) => module.name).join(', ')}`);
  for (const module of NATIVE_MODULES) {
    const log = path.join(cacheRoot, `rebuild-${module.name.replace(/[@/]/g, '_')}.log`);
    const result = spawnSync('npm', ['rebuild', module.name], {
      cwd: vscodeDir,
      env: { ...process.env, npm_config_yes: 'true' },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    fs.writeFileSync(log, `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`);
    if (result.status === 0) continue;
    if (module.required)
      throw new Error(`[code-server] ${module.name} did not build (needed for ${module.without}); see ${log}`);
    const needs = module.needs ? ` (it needs ${module.needs})` : '';
    console.log(
      `[code-server] skipped ${module.name}, used only for ${module.without}: its build failed${needs}; log: ${log}`,
    );
  }
}

const ripgrepLink = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');

/**
 * Points VS Code's ripgrep at the system's rg (the npm package would download one). Without rg
 * the editor still runs, only search does not; the link is made whenever rg shows up later.
 */
function linkRipgrep(): boolean {
  if (fs.existsSync(ripgrepLink)) return true;
  const rg = findOnPath('rg');
  if (!rg) return false;
  fs.rmSync(ripgrepLink, { force: true }); // a link to an rg that was since removed
  symlinkIfMissing(fs.realpathSync(rg), ripgrepLink);
  return true;
}

/** What the machine lacks for code-server (see system-check.ts), as one line or nothing. */
export function checkCodeServerSystem(env: NodeJS.ProcessEnv = process.env): SystemReport {
  const installed = fs.existsSync(doneMarker);
  return checkSystem({ codeServerInstalled: installed, ripgrepLinked: installed && linkRipgrep(), env });
}

/** Installs code-server into the cache unless a previous install completed. */
export function ensureCodeServer(): string {
  if (fs.existsSync(doneMarker)) {
    linkRipgrep();
    return codeServerDir;
  }
  const system = checkCodeServerSystem();
  if (system.fatal) throw new Error(system.line);
  const started = Date.now();
  console.log(`[code-server] installing ${CODE_SERVER_VERSION} into ${cacheRoot} (once)`);
  fs.mkdirSync(cacheRoot, { recursive: true });
  fs.writeFileSync(path.join(cacheRoot, 'package.json'), JSON.stringify({ name: 'vscode-test-cache', private: true }));
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', `code-server@${CODE_SERVER_VERSION}`],
    cacheRoot,
  );
  run('npm', ['rebuild', 'argon2'], cacheRoot);
  run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'], vscodeDir);
  rebuildNativeModules();
  linkRipgrep();
  symlinkIfMissing('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  symlinkIfMissing('code-linux.sh', path.join(vscodeDir, 'bin', 'remote-cli', 'code-server'));
  symlinkIfMissing('browser-linux.sh', path.join(vscodeDir, 'bin', 'helpers', 'browser.sh'));
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'],
    path.join(vscodeDir, 'extensions'),
  );
  fs.writeFileSync(doneMarker, new Date().toISOString());
  console.log(`[code-server] installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return codeServerDir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface CodeServerOptions {
  folder: string;
  userDataDir: string;
  extensionsDir: string;
  /** Workspace Trust stays on only for trust tests. */
  workspaceTrust?: boolean;
  settings?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Where code-server's own log goes (kept for failures). */
  logFile: string;
  /** A fixed port; a free one otherwise. */
  port?: number;
  /** Merge `settings` into an existing settings.json instead of starting from fresh ones. */
  keepSettings?: boolean;
}

export interface RunningCodeServer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function writeUserSettings(
  userDataDir: string,
  settings: Record<string, unknown>,
  workspaceTrust: boolean,
  keepExisting = false,
): void {
  const userDir = path.join(userDataDir, 'User');
  const file = path.join(userDir, 'settings.json');
  fs.mkdirSync(userDir, { recursive: true });
  const existing =
    keepExisting && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const all = {
    'workbench.startupEditor': 'none',
    'git.openRepositoryInParentFolders': 'never',
    'security.workspace.trust.enabled': workspaceTrust,
    'workbench.tips.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'telemetry.telemetryLevel': 'off',
    ...existing,
    ...settings,
  };
  fs.writeFileSync(file, JSON.stringify(all, null, 2));
}

/** Installs a packaged extension into an extensions folder with code-server's own CLI. */
export function installVsix(vsixPath: string, extensionsDir: string, userDataDir: string): void {
  const entry = path.join(ensureCodeServer(), 'out', 'node', 'entry.js');
  run(
    process.execPath,
    [
      entry,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--install-extension',
      vsixPath,
      '--force',
    ],
    projectRoot,
  );
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited early with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`code-server did not answer on ${url} within ${timeoutMs} ms`);
}

export async function startCodeServer(options: CodeServerOptions): Promise<RunningCodeServer> {
  const entry = path.join(ensureCodeServer(), 'out', 'node', 'entry.js');
  const port = options.port ?? (await freePort());
  writeUserSettings(options.userDataDir, options.settings ?? {}, options.workspaceTrust ?? false, options.keepSettings);
  fs.mkdirSync(options.extensionsDir, { recursive: true });
  const args = [
    entry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--user-data-dir',
    options.userDataDir,
    '--extensions-dir',
    options.extensionsDir,
  ];
  if (!options.workspaceTrust) args.push('--disable-workspace-trust');
  args.push(options.folder);
  const log = fs.openSync(options.logFile, 'w');
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', log, log],
    detached: true,
  });
  // code-server runs in its own process group (so stop() can end its extension host and
  // terminals too); make sure that group does not outlive this process.
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  process.once('exit', killGroup);
  child.once('exit', () => process.off('exit', killGroup));
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, child, PATIENCE_MS);
  return {
    url,
    port,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        // The extension host and its terminals are children: end the whole process group.
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
      fs.closeSync(log);
    },
  };
}

if (require.main === module) {
  const system = checkCodeServerSystem();
  if (system.line) console.log(system.line);
  if (system.fatal) process.exit(1);
  ensureCodeServer();
}
