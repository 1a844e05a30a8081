/**
 * Drives the real `openagent` CLI in a real pseudo-terminal: a tmux server of its own (a unique
 * socket, so tests never share one), the CLI run from source through tsx in a temporary
 * workspace, keys sent with `send-keys`, and the screen read with `capture-pane`. The command
 * is followed by `[exited N]` on the screen, so a test can see how the CLI ended.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PATIENCE_MS } from '../../harness/patience';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'src', 'cli', 'main.ts');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
/** Generous: a deadline only costs time when something is broken (see test/harness/patience.ts). */
const DEFAULT_WAIT_MS = PATIENCE_MS;

let sockets = 0;

export interface TmuxCliOptions {
  /** Arguments after `openagent`. */
  args: string[];
  /** The folder the CLI works in (default: a new temporary one). */
  cwd?: string;
  /** Added to (or, with undefined values, removed from) the environment. */
  env?: Record<string, string | undefined>;
}

export class TmuxCli {
  /** The server's socket file: tmux leaves it behind when the server is killed. */
  private socketPath: string | undefined;

  private constructor(
    private readonly socket: string,
    readonly cwd: string,
  ) {}

  static start(options: TmuxCliOptions): TmuxCli {
    const socket = `openagent-cli-test-${process.pid}-${++sockets}`;
    const cwd = options.cwd ?? fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-cli-ws-'));
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
    // Not nested in a tmux the tests themselves might run in.
    delete env.TMUX;
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const command = [TSX, CLI, ...options.args].map(shellQuote).join(' ');
    const cli = new TmuxCli(socket, cwd);
    // A new socket starts a new tmux server, with this environment.
    cli.tmux(
      [
        'new-session',
        '-d',
        '-s',
        'cli',
        '-x',
        '200',
        '-y',
        '50',
        '-c',
        cwd,
        `${command}; echo "[exited $?]"; sleep 600`,
      ],
      env,
    );
    cli.socketPath = cli.tmux(['display-message', '-p', '#{socket_path}']).trim();
    return cli;
  }

  /** Everything on the screen and above it, wrapped lines joined. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'cli']);
  }

  /** Types text and presses Enter. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'cli', '-l', text]);
    this.tmux(['send-keys', '-t', 'cli', 'Enter']);
  }

  /** Presses keys by tmux name: C-c, C-d, Enter, Up. */
  /** Types several lines at once, as one paste: they reach the program together, in one read. */
  typeLines(lines: readonly string[]): void {
    this.tmux(['send-keys', '-t', 'cli', '-l', lines.map((line) => `${line}\r`).join('')]);
  }

  press(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'cli', ...keys]);
  }

  /** Waits until the screen matches; fails with the screen when it does not in time. */
  async waitFor(expected: RegExp, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    return this.waitUntil((screen) => expected.test(screen), `the screen to match ${expected}`, timeoutMs);
  }

  /** Waits until `expected` occurs `count` times on the screen. */
  async waitForCount(expected: RegExp, count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    const global = new RegExp(expected.source, expected.flags.includes('g') ? expected.flags : `${expected.flags}g`);
    return this.waitUntil(
      (screen) => (screen.match(global) ?? []).length >= count,
      `${count} matches of ${expected}`,
      timeoutMs,
    );
  }

  /** Waits for the prompt to be shown the `count`-th time (the CLI is idle again). */
  async waitForPrompt(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    return this.waitForCount(/^openagent> /m, count, timeoutMs);
  }

  /** Waits for the CLI to end; resolves with its exit code. */
  async waitForExit(timeoutMs = DEFAULT_WAIT_MS): Promise<number> {
    const screen = await this.waitFor(/\[exited \d+\]/, timeoutMs);
    return Number(/\[exited (\d+)\]/.exec(screen)![1]);
  }

  async waitUntil(test: (screen: string) => boolean, what: string, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (test(screen)) return screen;
      if (Date.now() > deadline)
        throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}. The screen:\n${screen.trimEnd()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Ends the tmux server and with it the CLI. */
  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // Already gone.
    }
    if (this.socketPath) fs.rmSync(this.socketPath, { force: true });
  }

  private tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], {
      encoding: 'utf8',
      env: env ?? { ...process.env, TMUX: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
