/**
 * The `openagent` terminal command (SPEC 1.3), on the same core as the extension.
 * `openagent "fix the failing test"` answers one prompt and exits; without a prompt in a
 * terminal (or with -i) it is an interactive session with slash commands. Tool calls that
 * change something are asked about on the terminal; without one they are denied unless --yes.
 * Settings come from flags or the environment (see args.ts); conversations go to the same
 * store format as the extension's.
 */
import * as path from 'node:path';
import { createLlmClient } from '../core/llm/create-llm-client';
import { describeLocalServer, discoverLocalServers, localServerCandidates } from '../core/llm/local-servers';
import { PROVIDER_PRESETS } from '../core/llm/provider-presets';
import { AutoApprovalGate } from '../core/policy/auto-approval';
import { describeSandbox } from '../core/policy/sandbox-status';
import { EnvSecretSource } from '../node/env-secret-source';
import { HeldSecrets } from '../core/llm/held-secrets';
import { enterWorktree, worktreeOptions } from './worktree-place';
import { parseCliArgs, USAGE, type CliOptions } from './args';
import { createCliContext, type CliContext } from './compose';
import { EventPrinter } from './event-printer';
import { LineHistory } from './line-history';
import { LineReader } from './line-reader';
import { Output } from './output';
import { Repl } from './repl';
import { runPrompt, setupMessage } from './run-prompt';
import { colorWanted, createStyle } from './style';
import { runTeamCommand } from './team-command';
import { runReplayCommand } from './replay-command';
import { runShareCommand } from './run-share-command';
import { NoTerminalApprovalGate, TerminalApprovalGate } from './terminal-approval-gate';

export interface CliStreams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Runs the command; resolves with its exit code. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  streams: CliStreams = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const { stdin, stdout, stderr } = streams;
  // `openagent team …` is the team lead's commands (a prompt starting with "team" is quoted).
  if (argv[0] === 'team') return runTeamCommand(argv.slice(1), env, { stdout, stderr });
  // `openagent replay …` / `openagent compare …`: recorded runs (a prompt starting so is quoted).
  if (argv[0] === 'replay' || argv[0] === 'compare')
    return runReplayCommand(argv[0], argv.slice(1), env, { stdin, stdout, stderr });
  // `openagent export-run …` / `openagent import-run …`: a recorded run as a file to share.
  if (argv[0] === 'export-run' || argv[0] === 'import-run')
    return runShareCommand(argv[0], argv.slice(1), env, { stdout, stderr });
  const parsed = parseCliArgs(argv, env);
  if (!parsed.ok) {
    stderr.write(`openagent: ${parsed.message}\n\n${USAGE}\n`);
    return 2;
  }
  const options = parsed.options;
  if (options.help) {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  const interactive = options.interactive || (!options.prompt && Boolean(stdin.isTTY));
  let prompt = options.prompt;
  if (!interactive && !prompt) {
    // `echo "explain this" | openagent`: what is piped in is the prompt.
    prompt = (await readAll(stdin)).trim();
    if (!prompt) {
      stderr.write(`openagent: no prompt given.\n\n${USAGE}\n`);
      return 2;
    }
  }

  // Every secret the CLI holds — the environment's keys now, the keys routes read later — is
  // redacted from everything it prints and keeps (one value, handed to every sink).
  const heldSecrets = new HeldSecrets();
  heldSecrets.addEnvironment(env);
  // One-shot output keeps stdout for the answer alone; status lines and questions go to stderr.
  const output = new Output(
    stdout,
    interactive ? stdout : stderr,
    stderr,
    createStyle(colorWanted(stdout, env)),
    heldSecrets.redact,
  );
  // --worktree: every tool works in the session's worktree, not the folder the CLI started in.
  let workspaceRoot = process.cwd();
  if (options.worktree) {
    try {
      workspaceRoot = (await enterWorktree(options.worktree, worktreeOptions(options, env, output))).root;
    } catch (error) {
      output.error(`openagent: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  const canAsk = interactive || Boolean(stdin.isTTY);
  const reader = canAsk
    ? new LineReader(
        stdin,
        interactive ? stdout : stderr,
        output,
        new LineHistory(interactive ? path.join(options.storeDirectory, 'cli-history') : undefined),
      )
    : undefined;
  const approveAll = {
    on: options.approveAll,
    set(on: boolean) {
      this.on = on;
    },
  };
  const cli = createCliContext({
    settings: {
      provider: options.provider,
      model: options.model,
      baseUrl: options.baseUrl,
      preset: options.preset,
      maxTurns: options.maxTurns,
      maxOutputTokens: options.maxOutputTokens,
      contextWindow: options.contextWindow,
      callCostWarningUsd: options.callCostWarningUsd,
      idleTimeout: options.idleTimeout,
      probeTimeout: options.probeTimeout,
      sandbox: options.sandbox,
      images: options.images,
    },
    workspaceRoot,
    storeDirectory: options.storeDirectory,
    env,
    heldSecrets,
    // Approve-all (--yes, /approve-all, "a") still asks about protected paths.
    approvals: (workspace) =>
      new AutoApprovalGate(
        reader
          ? new TerminalApprovalGate({
              output,
              ask: (question, signal) => reader.readLine(question, { signal }),
              workspace: () => workspace,
              approveRest: () => approveAll.set(true),
            })
          : new NoTerminalApprovalGate(output),
        () => approveAll.on,
      ),
    warn: (message) => output.error(message),
    ...(reader ? { readLine: (question, signal) => reader.readLine(question, { signal }) } : {}),
  });
  if (!(await cli.presets.has(options.preset))) {
    output.error(`openagent: unknown preset "${options.preset}". Presets: ${(await cli.presets.list()).join(', ')}.`);
    reader?.close();
    return 2;
  }

  try {
    if (interactive) {
      await warnAboutModelSetup(cli, env, output);
      await new Repl({
        cli,
        reader: reader!,
        output,
        env,
        storeDirectory: options.storeDirectory,
        workspaceRoot,
        approveAll,
      }).run(prompt || undefined);
      return 0;
    }
    return await oneShot(cli, prompt, options, output, reader, env);
  } finally {
    await cli.close();
    reader?.close();
  }
}

async function oneShot(
  cli: CliContext,
  prompt: string,
  options: CliOptions,
  output: Output,
  reader: LineReader | undefined,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const printer = new EventPrinter(output);
  cli.session.onEvent((event) => printer.print(event));
  // Told once where commands are not confined (the README's promise; --yes or not): on stderr,
  // which one-shot keeps for status lines, so stdout stays the answer alone.
  const sandbox = cli.sandboxStatus();
  if (!sandbox.confined) output.error(`openagent: ${describeSandbox(sandbox)}`);
  const outcome = await runPrompt(
    cli.session,
    prompt,
    (work, stop) => (reader ? reader.busy(work, stop) : whileSigint(work, stop)),
    undefined,
    cli.resolveMention,
  );
  output.newline();
  if (outcome.kind === 'interrupted' && outcome.beforeRun) output.line(output.style.yellow('(interrupted)'));
  if (outcome.kind === 'setup') {
    output.error(`openagent: ${setupMessage(outcome.problem, options.provider)}`);
    if (outcome.problem.reason === 'missing_api_key') await offerLocalServers(output, env, 'flags');
    return 1;
  }
  // The run's own error and interruption were printed as events.
  return outcome.kind === 'done' ? 0 : outcome.kind === 'interrupted' ? 130 : 1;
}

/** Without a terminal, Ctrl+C is a SIGINT: it stops the run instead of killing the process. */
async function whileSigint<T>(work: Promise<T>, stop: () => void): Promise<T> {
  process.on('SIGINT', stop);
  try {
    return await work;
  } finally {
    process.off('SIGINT', stop);
  }
}

/** The interactive session starts even without a usable model (/model may fix it); it says so first. */
async function warnAboutModelSetup(cli: CliContext, env: NodeJS.ProcessEnv, output: Output): Promise<void> {
  const provider = cli.settings.provider;
  const setup = createLlmClient(cli.settings, await new EnvSecretSource(env).getApiKey(provider.trim()));
  if (!setup.ok) {
    output.error(`openagent: ${setupMessage(setup, provider)}`);
    if (setup.reason === 'missing_api_key') await offerLocalServers(output, env, 'slash');
  }
}

/** First contact: the local model servers running here, and how to use one (flags or /model). */
async function offerLocalServers(output: Output, env: NodeJS.ProcessEnv, how: 'flags' | 'slash'): Promise<void> {
  const servers = await discoverLocalServers(localServerCandidates(env.OPENAGENT_LOCAL_SERVERS));
  if (servers.length === 0) return;
  output.line('Found on this machine:');
  for (const server of servers) {
    const model = server.models[0]!;
    // /model knows the usual addresses only; a server elsewhere needs the flags.
    const usual = PROVIDER_PRESETS[server.provider].defaultBaseUrl?.replace('localhost', '127.0.0.1');
    const use =
      how === 'slash' && server.baseUrl === usual
        ? `/model ${server.provider}/${model}`
        : `openagent --provider ${server.provider} --base-url ${shellWord(server.baseUrl)} --model ${shellWord(model)} "…"`;
    output.line(`  ${describeLocalServer(server)}  → ${use}`);
  }
}

/** A word to paste into a shell: as it is when plain, else single-quoted (a server chose it). */
function shellWord(text: string): string {
  return /^[\w./:@+-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

if (require.main === module) {
  // `openagent "…" | head`: a reader that stopped reading is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  void main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      // Exit once the output is written, even if something still holds the event loop (a
      // keep-alive socket, a background job's pipe): the session is over.
      setTimeout(() => process.exit(code), 500).unref();
    },
    (error: unknown) => {
      process.stderr.write(`openagent: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
