/**
 * Activation in the real editor (issue 23): code-server 4.100.3 (VS Code 1.100.3) with the
 * packaged extension installed in a fresh profile per run, in two cases —
 *  - "chat": the user clicks OpenAgent in the activity bar after startup (onView activation);
 *  - "agent-yaml": the folder has .openagent/agent.yaml, so OpenAgent activates at startup;
 * each timed by extension-timer.js inside the extension host (load of the main module plus
 * the activate() call, VS Code's own definition) beside the built-in Git extension in the same
 * run. Each run then starts the first conversation through the extension API (the
 * first-conversation test extension) against the fake model server and times its first token.
 * Runs of the cases (and of a baseline build, when given) are interleaved, so a machine that
 * gets busier touches all of them alike.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { loadScenario } from '../fixtures/fake-model-server/scenario';
import { ensureCodeServer } from '../harness/code-server';
import { PATIENCE_MS, waitUntil } from '../harness/patience';
import { readZipEntries } from '../harness/zip-entries';
import { projectRoot, WorkbenchSession } from '../harness/workbench-session';
import { waitForWorkbench } from '../e2e/workbench-ui';
import { summarizeProfile, type ProfileSummary } from './activation/cpu-profile';
import { BARE_WEBVIEW_VIEW, openViewTimed, type ChatOpenTiming } from './activation/chat-open-timing';

export const ACTIVATION_RUNS = Number(process.env.OPENAGENT_BENCH_ACTIVATION_RUNS) || 5;
const OPENAGENT_ID = 'openagent.openagent';
const GIT_ID = 'vscode.git';
const TIMER = path.join(__dirname, 'activation', 'extension-timer.js');
const FIRST_CONVERSATION = path.join(projectRoot, 'test', 'fixtures', 'extensions', 'first-conversation');
const BARE_VIEW = path.join(projectRoot, 'test', 'fixtures', 'extensions', 'bare-webview-view');

export type StartupCase = 'chat' | 'agent-yaml';
export const STARTUP_CASES: Record<StartupCase, string> = {
  chat: 'chat opened from the activity bar',
  'agent-yaml': 'folder with .openagent/agent.yaml (startup)',
};

export interface LoadedFile {
  file: string;
  bytes: number;
}

export interface ActivationTiming {
  loadMs: number;
  activateMs: number;
  totalMs: number;
  /** The same spans in CPU time of the extension host (not counting waits for a busy core). */
  loadCpuMs: number;
  activateCpuMs: number;
  totalCpuMs: number;
  /** Every module compiled during the load and activate() (paths relative to the extension). */
  files: LoadedFile[];
  /** VS Code's own marks: its code-loading span, and the wait from loaded to activate() called. */
  vscodeLoadMs?: number;
  loadedToActivateMs?: number;
  /** When the extension host began to load the code and when activate() returned (epoch ms). */
  willLoadAt?: number;
  activatedAt?: number;
}

export interface ActivationRun {
  build: string;
  startupCase: StartupCase;
  openagent: ActivationTiming;
  git: ActivationTiming;
  /** Click on the activity bar to the chat's first paint and to its composer taking input (chat case). */
  chatOpen?: ChatOpenTiming;
  /** The same for the bare webview view, in a run that opened it instead of the chat. */
  bareView?: ChatOpenTiming;
  firstConversation: { firstTokenMs: number; firstTokenCpuMs: number; startedMs: number; finishedMs: number };
  /** Modules of OpenAgent's folder compiled after activation, up to the first conversation's end. */
  later: LoadedFile[];
}

export interface Build {
  label: string;
  vsix: string;
  /** The extension folder unpacked from the .vsix, copied into each run's extensions folder. */
  dir: string;
  folderName: string;
  /** chatJs: the chat's first script; chatAllJs: with the chunks it loads after its first paint. */
  sizes: { vsix: number; extensionJs: number; chatJs: number; chatAllJs: number; distJs: number };
}

/** CPU profiles of one more run per case (not timed: the profiler slows what it records). */
export interface ActivationProfile {
  startupCase: StartupCase;
  activation: ProfileSummary;
  firstConversation: ProfileSummary;
}

export interface ActivationResults {
  builds: Build[];
  runs: ActivationRun[];
  /** The bare webview view opened instead of the chat, one run per round, with this build installed. */
  bareViews: ChatOpenTiming[];
  profiles: ActivationProfile[];
  loadBefore: number[];
  loadAfter: number[];
}

/**
 * The builds to compare: this checkout, packaged now (or OPENAGENT_BENCH_VSIX), and a baseline
 * (OPENAGENT_BENCH_BASELINE_VSIX, e.g. main's .vsix) measured in the same run when given.
 */
function builds(workDir: string): Build[] {
  const current = process.env.OPENAGENT_BENCH_VSIX ?? packageCheckout(workDir);
  const list = [unpack(current, 'this build', workDir)];
  const baseline = process.env.OPENAGENT_BENCH_BASELINE_VSIX;
  if (baseline) list.unshift(unpack(baseline, 'baseline', workDir));
  return list;
}

function packageCheckout(workDir: string): string {
  const vsix = path.join(workDir, 'openagent.vsix');
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  run(process.execPath, ['esbuild.mjs', '--production']);
  run(process.execPath, [
    path.join(projectRoot, 'node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--no-dependencies',
    '--out',
    vsix,
  ]);
  return vsix;
}

function unpack(vsix: string, label: string, workDir: string): Build {
  const entries = readZipEntries(vsix);
  const manifest = entries.find((entry) => entry.name === 'extension/package.json');
  if (!manifest) throw new Error(`${vsix} has no extension/package.json`);
  const { publisher, name, version } = JSON.parse(manifest.read().toString('utf8')) as Record<string, string>;
  const folderName = `${publisher}.${name}-${version}`;
  const dir = path.join(workDir, label.replace(/\W+/g, '-'), folderName);
  for (const entry of entries) {
    if (!entry.name.startsWith('extension/') || entry.name.endsWith('/')) continue;
    const target = path.join(dir, entry.name.slice('extension/'.length));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, entry.read());
  }
  const size = (relative: string) =>
    fs.existsSync(path.join(dir, relative)) ? fs.statSync(path.join(dir, relative)).size : 0;
  const distJs = fs
    .readdirSync(path.join(dir, 'dist'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js') && !file.startsWith('webview') && file !== 'cli.js')
    .reduce((sum, file) => sum + size(path.join('dist', file)), 0);
  return {
    label,
    vsix,
    dir,
    folderName,
    sizes: {
      vsix: fs.statSync(vsix).size,
      extensionJs: size('dist/extension.js'),
      chatJs: size('dist/webview/chat.js'),
      chatAllJs: fs
        .readdirSync(path.join(dir, 'dist', 'webview'))
        .filter((file) => file.startsWith('chat') && file.endsWith('.js'))
        .reduce((sum, file) => sum + size(path.join('dist', 'webview', file)), 0),
      distJs,
    },
  };
}

/** Where the first-conversation test extension asks when to start and reports what it measured. */
class FirstConversationChannel {
  private pending: http.ServerResponse | undefined;
  private arrived: (() => void) | undefined;
  private result: ((body: Record<string, unknown>) => void) | undefined;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<FirstConversationChannel> {
    const server = http.createServer();
    const channel = new FirstConversationChannel(server);
    server.on('request', (request, response) => channel.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return channel;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves when the extension asks to start, i.e. once the editor finished starting up. */
  waitForExtension(): Promise<void> {
    if (this.pending) return Promise.resolve();
    return new Promise((resolve) => (this.arrived = resolve));
  }

  /** Tells the waiting extension to start with `prompt`; resolves with what it reports. */
  run(prompt: string): Promise<Record<string, unknown>> {
    const pending = this.pending;
    if (!pending) throw new Error('the first-conversation extension is not waiting');
    this.pending = undefined;
    const reported = new Promise<Record<string, unknown>>((resolve) => (this.result = resolve));
    pending.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ prompt }));
    return reported;
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (request.method === 'GET' && request.url === '/first-conversation/start') {
      this.pending = response;
      this.arrived?.();
      this.arrived = undefined;
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      response.writeHead(204).end();
      if (request.url === '/first-conversation/result') this.result?.(JSON.parse(body) as Record<string, unknown>);
    });
  }

  close(): Promise<void> {
    this.pending?.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface TimerRecord {
  kind: 'activation' | 'later';
  id: string;
  loadMs: number;
  activateMs: number;
  loadCpuMs: number;
  activateCpuMs: number;
  files: LoadedFile[];
  file: string;
  bytes: number;
  vscode?: { loadMs?: number; loadedToActivateMs?: number; willLoadAt?: number; activatedAt?: number };
}

function readTimerLog(file: string): TimerRecord[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TimerRecord);
}

function waitForActivation(log: string, id: string, session: WorkbenchSession): Promise<ActivationTiming> {
  return waitUntil(
    () => {
      const record = readTimerLog(log).find((entry) => entry.kind === 'activation' && entry.id === id);
      if (!record) return undefined;
      return {
        loadMs: record.loadMs,
        activateMs: record.activateMs,
        totalMs: record.loadMs + record.activateMs,
        loadCpuMs: record.loadCpuMs,
        activateCpuMs: record.activateCpuMs,
        totalCpuMs: record.loadCpuMs + record.activateCpuMs,
        files: record.files,
        vscodeLoadMs: record.vscode?.loadMs,
        loadedToActivateMs: record.vscode?.loadedToActivateMs,
        willLoadAt: record.vscode?.willLoadAt,
        activatedAt: record.vscode?.activatedAt,
      };
    },
    () => `the activation of ${id} to be timed; the editor's logs:\n${session.diagnostics(3_000)}`,
    PATIENCE_MS,
    50,
  );
}

async function runOnce(
  build: Build,
  startupCase: StartupCase,
  fake: FakeModelServer,
  channel: FirstConversationChannel,
  profileDir?: string,
  /** Opens the bare webview view, not OpenAgent's chat (chat case): the editor's floor, measured in the same state. */
  bare = false,
): Promise<ActivationRun> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-activation-'));
  const log = path.join(runDir, 'timer.jsonl');
  const targetsFile = path.join(runDir, 'targets.json');
  fake.setScenario(loadScenario('hello'));
  const session = await WorkbenchSession.start({
    workspace: 'sample',
    settings: {
      'openagent.provider': 'anthropic',
      'openagent.model': 'fake-model',
      'openagent.baseUrl': fake.anthropicBaseUrl,
    },
    env: {
      NODE_OPTIONS: `--require ${TIMER}`,
      OPENAGENT_ACTIVATION_TIMER_LOG: log,
      OPENAGENT_ACTIVATION_TIMER_TARGETS: targetsFile,
      OPENAGENT_BENCH_URL: channel.url,
      OPENAGENT_ACTIVATION_TIMER_PROFILE: profileDir,
      ANTHROPIC_API_KEY: 'sk-ant-bench-key',
      OPENAI_API_KEY: undefined,
      OPENAGENT_API_KEY: undefined,
    },
    prepare: ({ extensionsDir, workspaceDir }) => {
      const installed = path.join(extensionsDir, build.folderName);
      fs.cpSync(build.dir, installed, { recursive: true });
      fs.cpSync(FIRST_CONVERSATION, path.join(extensionsDir, 'openagent-bench.first-conversation-0.0.1'), {
        recursive: true,
      });
      fs.cpSync(BARE_VIEW, path.join(extensionsDir, 'openagent-bench.bare-webview-view-0.0.1'), { recursive: true });
      const git = path.join(ensureCodeServer(), 'lib', 'vscode', 'extensions', 'git');
      fs.writeFileSync(
        targetsFile,
        JSON.stringify([
          { id: OPENAGENT_ID, dir: installed },
          { id: GIT_ID, dir: git },
        ]),
      );
      if (startupCase === 'agent-yaml') {
        fs.mkdirSync(path.join(workspaceDir, '.openagent'), { recursive: true });
        fs.writeFileSync(
          path.join(workspaceDir, '.openagent', 'agent.yaml'),
          'tools:\n  allow: [read_file, list_files, search_files]\n  bash:\n    deny: ["git push*"]\nbudget:\n  daily_usd: 5\n',
        );
      }
    },
  });
  try {
    const page = await session.openPage(`folder=${encodeURIComponent(session.workspaceDir)}`);
    await waitForWorkbench(page);
    const git = await waitForActivation(log, GIT_ID, session);
    // Startup is over once the test extension (onStartupFinished) asks when to start.
    await channel.waitForExtension();
    let chatOpen: ChatOpenTiming | undefined;
    let bareView: ChatOpenTiming | undefined;
    if (startupCase === 'chat') {
      if (readTimerLog(log).some((entry) => entry.id === OPENAGENT_ID))
        throw new Error('OpenAgent activated before the chat was opened');
      // Only the first webview view a window opens is timed: a second one took VS Code about a
      // second longer here, whichever it was.
      if (bare) bareView = await openViewTimed(page, BARE_WEBVIEW_VIEW);
      else chatOpen = await openViewTimed(page);
    }
    // The first conversation activates OpenAgent where nothing else did (the bare view's run).
    const conversation = channel.run('hello');
    const openagent = await waitForActivation(log, OPENAGENT_ID, session);
    if (chatOpen) {
      const since = (at: number | undefined) => (at === undefined ? undefined : at - chatOpen!.clickedAt);
      chatOpen.activationStartedMs = since(openagent.willLoadAt);
      chatOpen.activatedMs = since(openagent.activatedAt);
    }
    const reported = await conversation;
    if (typeof reported.error === 'string') throw new Error(`first conversation: ${reported.error}`);
    const later = readTimerLog(log)
      .filter((entry) => entry.kind === 'later' && entry.id === OPENAGENT_ID)
      .map(({ file, bytes }) => ({ file, bytes }));
    return {
      build: build.label,
      startupCase,
      openagent,
      git,
      chatOpen,
      bareView,
      firstConversation: reported as ActivationRun['firstConversation'],
      later,
    };
  } finally {
    await session.stop();
    fs.rmSync(session.root, { recursive: true, force: true });
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

/** One more run of `build` in `startupCase` under V8's CPU profiler: activation, and the first conversation. */
async function profileOnce(
  build: Build,
  startupCase: StartupCase,
  fake: FakeModelServer,
  channel: FirstConversationChannel,
): Promise<ActivationProfile> {
  // OPENAGENT_BENCH_PROFILE_DIR keeps the profiles (to open in Chrome DevTools); else they go.
  const keep = process.env.OPENAGENT_BENCH_PROFILE_DIR;
  const profileDir = keep
    ? path.join(keep, `${startupCase}-${Date.now()}`)
    : fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-activation-profile-'));
  fs.mkdirSync(profileDir, { recursive: true });
  try {
    await runOnce(build, startupCase, fake, channel, profileDir);
    const profile = (name: string) =>
      waitUntil(
        () => fs.existsSync(path.join(profileDir, name)) && summarizeProfile(path.join(profileDir, name)),
        `${name} to be written`,
      );
    return {
      startupCase,
      activation: await profile(`${OPENAGENT_ID}.cpuprofile`),
      firstConversation: await profile('first-conversation.cpuprofile'),
    };
  } finally {
    if (!keep) fs.rmSync(profileDir, { recursive: true, force: true });
  }
}

/**
 * All runs, interleaved: run 1 of every build and case, then run 2, and so on; then, with
 * `profile`, one profiled run per case of this build.
 */
export async function measureActivation(
  onRun: (run: ActivationRun, index: number, total: number) => void = () => undefined,
  profile = false,
): Promise<ActivationResults> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-activation-builds-'));
  const fake = await FakeModelServer.start();
  const channel = await FirstConversationChannel.start();
  try {
    const list = builds(workDir);
    const loadBefore = os.loadavg();
    const runs: ActivationRun[] = [];
    const order = Array.from({ length: ACTIVATION_RUNS }, () =>
      list.flatMap((build) =>
        (Object.keys(STARTUP_CASES) as StartupCase[]).map((startupCase) => ({ build, startupCase })),
      ),
    ).flat();
    const bareViews: ChatOpenTiming[] = [];
    for (const [index, { build, startupCase }] of order.entries()) {
      const run = await runOnce(build, startupCase, fake, channel);
      runs.push(run);
      onRun(run, index, order.length);
      // Once a round, after its last run: the bare webview view in the same state.
      if ((index + 1) % (order.length / ACTIVATION_RUNS) === 0) {
        const { bareView } = await runOnce(list.at(-1)!, 'chat', fake, channel, undefined, true);
        bareViews.push(bareView!);
      }
    }
    const loadAfter = os.loadavg();
    const profiles: ActivationProfile[] = [];
    if (profile)
      for (const startupCase of Object.keys(STARTUP_CASES) as StartupCase[])
        profiles.push(await profileOnce(list.at(-1)!, startupCase, fake, channel));
    return { builds: list, runs, bareViews, profiles, loadBefore, loadAfter };
  } finally {
    await Promise.all([fake.close(), channel.close()]);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
