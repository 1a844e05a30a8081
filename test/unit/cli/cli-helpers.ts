/** What the CLI tests share: the flags that point the CLI at the fake model server, a clean environment, request readers, a runner. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FakeModelServer, RecordedRequest } from '../../fixtures/fake-model-server/server';
import { PATIENCE_MS } from '../../harness/patience';

/** The flags for the fake server's OpenAI-compatible endpoint and a store of its own. */
export function cliArgs(server: FakeModelServer, store: string): string[] {
  return [
    '--store',
    store,
    '--provider',
    'openai-compatible',
    '--base-url',
    server.openAiBaseUrl,
    '--model',
    'fake-model',
  ];
}

/** No keys or settings from the machine running the tests; a home of its own. */
export function cleanEnv(): Record<string, string | undefined> {
  return {
    HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-cli-home-')),
    ANTHROPIC_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    OPENAGENT_API_KEY: undefined,
    OPENAGENT_PROVIDER: undefined,
    OPENAGENT_MODEL: undefined,
    OPENAGENT_BASE_URL: undefined,
    OPENAGENT_STORE: undefined,
    OPENAGENT_PRESET: undefined,
    // VS Code's user mcp.json is found under it (Linux): never the developer's own.
    XDG_CONFIG_HOME: undefined,
  };
}

export function tempFolder(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `openagent-cli-${prefix}-`));
}

interface WireMessage {
  role: string;
  content: unknown;
}

export function requestBody(request: RecordedRequest | undefined): {
  model?: string;
  messages: WireMessage[];
  tools?: Array<{ function?: { name?: string } }>;
} {
  const body = (request?.body ?? {}) as { model?: string; messages?: WireMessage[] };
  return { ...body, messages: body.messages ?? [] };
}

/** A message's text, whichever shape its content has (string or text parts). */
export function textOf(message: WireMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

/** The names of the tools a request offered the model. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  return (requestBody(request).tools ?? []).map((tool) => tool.function?.name ?? '');
}

/** Polls until `condition` holds (for things outside the screen: server requests, files). */
export async function eventually(condition: () => boolean, what: string, timeoutMs = PATIENCE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'src', 'cli', 'main.ts');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A CLI process whose output can be watched while it runs. */
export interface RunningCli {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when the process has exited (killed after `timeoutMs`: code -1). */
  finished: Promise<Ran>;
}

/** Starts the CLI from source with stdin a pipe (holding `input`, if any) in `cwd`, with a clean environment. */
export function startCli(
  args: string[],
  options: { cwd: string; input?: string; home?: string; timeoutMs?: number; env?: Record<string, string> },
): RunningCli {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const overrides = { ...cleanEnv(), ...(options.home ? { HOME: options.home } : {}), ...options.env };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(TSX, [CLI, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  child.stdin!.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? PATIENCE_MS);
  const finished = new Promise<Ran>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: output.stdout, stderr: output.stderr });
    });
  });
  return {
    child,
    get stdout() {
      return output.stdout;
    },
    get stderr() {
      return output.stderr;
    },
    finished,
  };
}

/** Runs the CLI to the end (see startCli). */
/**
 * Ctrl+C without a terminal: SIGINT to the CLI's own process. Not to the tsx wrapper the helpers
 * start it through: tsx relays a signal and, when the child has not said it got it within 30 ms
 * (a loaded machine), kills the CLI and exits 130 itself, which would look like a stopped run.
 */
export function interruptCli(cli: RunningCli): void {
  const pid = cli.child.pid!;
  let children: number[] = [];
  try {
    children = fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // No /proc (not Linux): the wrapper relays it.
  }
  if (children.length === 0) return void cli.child.kill('SIGINT');
  for (const child of children) process.kill(child, 'SIGINT');
}

export function runCli(args: string[], options: Parameters<typeof startCli>[1]): Promise<Ran> {
  return startCli(args, options).finished;
}
