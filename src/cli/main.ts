/**
 * The `openagent` terminal command, on the same core as the extension. This first version
 * answers one prompt: `openagent "explain this repository"`. Settings come from flags or the
 * environment (OPENAGENT_PROVIDER, OPENAGENT_MODEL, OPENAGENT_BASE_URL, and the provider's
 * API key variable such as ANTHROPIC_API_KEY).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Conversation } from '../core/agent/conversation';
import { buildSystemPrompt } from '../core/agent/system-prompt';
import { createLlmClient } from '../core/llm/create-llm-client';
import { EnvSecretSource } from '../node/env-secret-source';
import { systemClock } from '../node/system-clock';
import { ConversationRecorder } from '../core/agent/conversation-recorder';
import { SqlJsStore } from '../store/sqljs-store';
import { createFileTools } from '../core/tools/builtin/file-tools';
import { NodeWorkspace } from '../node/node-workspace';
import { createBashTool } from '../core/tools/builtin/bash';
import { createSearchTool } from '../core/tools/builtin/code-tools';
import { findRipgrep, RipgrepSearch } from '../node/ripgrep-search';
import { ChildProcessShell } from '../node/child-process-shell';

const USAGE = `Usage: openagent [options] "<prompt>"

Options:
  --provider <id>    anthropic | openai | ollama | lmstudio | llamacpp | vllm | openai-compatible
  --model <name>     model name (default: the provider's default)
  --base-url <url>   server address (default: the provider's default)
  --max-turns <n>    model calls per request before a final summary (default 50)
  --store <dir>      where conversations are kept (default ~/.openagent/store; same format as the extension)
  -h, --help         show this help`;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        provider: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        'max-turns': { type: 'string' },
        store: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
    return 2;
  }
  const prompt = parsed.positionals.join(' ').trim();
  if (parsed.values.help || !prompt) {
    process.stdout.write(`${USAGE}\n`);
    return parsed.values.help ? 0 : 2;
  }

  const settings = {
    provider: parsed.values.provider ?? env.OPENAGENT_PROVIDER ?? 'anthropic',
    model: parsed.values.model ?? env.OPENAGENT_MODEL ?? '',
    baseUrl: parsed.values['base-url'] ?? env.OPENAGENT_BASE_URL ?? '',
  };
  const setup = createLlmClient(settings, await new EnvSecretSource(env).getApiKey(settings.provider));
  if (!setup.ok) {
    process.stderr.write(`openagent: ${setup.message.replace('"OpenAgent: Set API Key"', 'the environment')}\n`);
    return 1;
  }

  const presetText = readFileSync(bundledFile('prompts', 'coding', 'PROMPT.md'), 'utf8');
  const workspace = new NodeWorkspace(process.cwd());
  const conversation = new Conversation({
    id: randomUUID(),
    model: { llm: setup.client, model: setup.model },
    system: buildSystemPrompt(presetText, {
      os: `${os.type()} ${os.release()}`,
      shell: env.SHELL ?? 'unknown',
      workspaceRoot: process.cwd(),
      date: new Date(),
    }),
    clock: systemClock,
    // Reading tools work (code navigation needs an editor's language features: not here); writing ones are refused until the CLI asks for approval on the terminal.
    tools: [
      ...createFileTools(workspace),
      createSearchTool(new RipgrepSearch(findRipgrep([])), workspace),
      createBashTool(new ChildProcessShell(), () => process.cwd()),
    ],
    limits: parsed.values['max-turns'] ? { maxTurns: Math.max(1, Number(parsed.values['max-turns']) || 50) } : {},
  });
  const storeDirectory = parsed.values.store ?? env.OPENAGENT_STORE ?? path.join(os.homedir(), '.openagent', 'store');
  let store: SqlJsStore | undefined;
  try {
    const opened = await SqlJsStore.open({ directory: storeDirectory, wasmPath: sqlWasmPath() });
    store = opened.store;
    if (opened.quarantined)
      process.stderr.write(
        `openagent: ${opened.quarantined.error.message} Started a new store; the old file is kept at ${opened.quarantined.path}.\n`,
      );
  } catch (error) {
    process.stderr.write(
      `openagent: the conversation will not be saved: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  const recorder =
    store &&
    new ConversationRecorder({
      store,
      conversationId: conversation.id,
      now: Date.now,
      settings: { provider: setup.preset.id, model: setup.model },
      onError: (error) =>
        process.stderr.write(
          `openagent: could not save the conversation: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
    });
  let exitCode = 0;
  conversation.subscribe((event) => {
    recorder?.record(event);
    if (event.type === 'text_delta') process.stdout.write(event.text);
    else if (event.type === 'done') process.stdout.write('\n');
    else if (event.type === 'error') {
      process.stderr.write(`\nopenagent: ${event.message}\n`);
      exitCode = 1;
    } else if (event.type === 'interrupted') {
      process.stderr.write(`\nopenagent: ${event.reason}\n`);
      exitCode = 130;
    }
  });
  const interrupt = () => conversation.stop();
  process.once('SIGINT', interrupt);
  await conversation.submit(prompt);
  process.off('SIGINT', interrupt);
  await recorder?.flush();
  await store?.close();
  return exitCode;
}

/** The sql.js WebAssembly: beside dist/cli.js when packaged, in node_modules when run from src/. */
function sqlWasmPath(): string {
  const candidates = [
    path.join(__dirname, 'sql-wasm.wasm'),
    path.join(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}

/** Bundled files sit beside dist/ when packaged, and two levels up when run from src/cli. */
function bundledFile(...segments: string[]): string {
  const candidates = [path.join(__dirname, '..', ...segments), path.join(__dirname, '..', '..', ...segments)];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
