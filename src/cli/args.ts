/**
 * The command line of `openagent`: flags, the prompt, and what the environment fills in
 * (OPENAGENT_PROVIDER, OPENAGENT_MODEL, OPENAGENT_BASE_URL, OPENAGENT_PRESET, OPENAGENT_STORE).
 */
import { PROVIDER_PRESETS } from '../core/llm/provider-presets';
import { SANDBOX_MODES, type SandboxMode } from '../core/policy/sandbox-modes';
import { ACCEPTS_IMAGES_CHOICES, type AcceptsImagesChoice } from '../core/images/accepts-images';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

/** The extension's default for openagent.callCostWarningUsd, the CLI's too. */
export const DEFAULT_CALL_COST_WARNING_USD = 0.5;

export const USAGE = `Usage: openagent [options] ["<prompt>"]

With a prompt, answers it and exits. Without one (in a terminal), or with -i, starts an
interactive session: type /help there for its commands.

Options:
  --provider <id>    ${Object.keys(PROVIDER_PRESETS).join(' | ')}
  --model <name>     model name (default: the provider's default)
  --base-url <url>   server address (default: the provider's default)
  --preset <name>    system prompt preset: coding, work, or .openagent/prompts/<name> (default coding)
  --max-turns <n>    model calls per request before a final summary (default 50)
  --max-output-tokens <n>
                     most tokens one answer may have (default 8192)
  --context-window <n>
                     the model's context window in tokens (default: what the server says, else
                     what OpenAgent knows of the model; OPENAGENT_CONTEXT_WINDOW)
  --warn-cost <usd>  warn before a model call whose input is estimated to cost more than this
                     (default 0.5; 0 turns it off; OPENAGENT_CALL_COST_WARNING_USD)
  --idle-timeout <s> seconds an answer may go without progress (keep-alives do not count) before
                     the server is reported as not answering (default 120; OPENAGENT_STREAM_IDLE_TIMEOUT)
  --probe-timeout <s>
                     seconds to wait for a local server's window size and token count before going
                     on without them (default 5; OPENAGENT_PROBE_TIMEOUT). Ctrl+C ends the wait
  --sandbox <mode>   auto | required | off: whether commands run confined (bubblewrap on Linux;
                     default auto; OPENAGENT_SANDBOX). A policy can make it stricter, never looser
  --images <choice>  auto | yes | no: whether the model takes images (read_file of a picture); auto
                     decides by the model's name (default auto; OPENAGENT_IMAGES)
  --store <dir>      where conversations are kept (default ~/.openagent/store; same format as the extension)
  --worktree <name>  work in a git worktree of this repository on the branch openagent/<name>, made
                     outside it (OPENAGENT_WORKTREES, default ~/.openagent/worktrees) or worked in
                     again; the same worktrees the editor's sessions use
  -y, --yes          approve every tool call without asking (alias --approve-all; risky calls still ask)
  -i, --interactive  start the interactive session (after answering the prompt, if one is given)
  -h, --help         show this help

Team database commands: openagent team --help.
Recorded runs: openagent replay <conversation> [--until STEP] [--json]; openagent compare A B [--json].
Share and check runs: openagent export-run <conversation> [-o FILE]; openagent import-run FILE;
  openagent replay --check DIR (every exported run in DIR; exit 1 if one diverges).

API keys come from the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAGENT_API_KEY.`;

export interface CliOptions {
  provider: string;
  model: string;
  baseUrl: string;
  preset: string;
  maxTurns: number | undefined;
  maxOutputTokens: number | undefined;
  contextWindow: number | undefined;
  /** Warn before a call estimated above this many USD; 0: never. */
  callCostWarningUsd: number;
  /** Seconds. */
  idleTimeout: number | undefined;
  /** Seconds a local server's window and token count are waited for. */
  probeTimeout: number | undefined;
  storeDirectory: string;
  /** Work in the worktree of this name (--worktree); undefined: in the current folder. */
  worktree: string | undefined;
  sandbox: SandboxMode;
  /** Whether the model takes images (--images); auto: its name decides. */
  images?: AcceptsImagesChoice;
  approveAll: boolean;
  interactive: boolean;
  help: boolean;
  /** Empty when none was given. */
  prompt: string;
}

export type ParsedArgs = { ok: true; options: CliOptions } | { ok: false; message: string };

export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        provider: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        preset: { type: 'string' },
        'max-turns': { type: 'string' },
        'max-output-tokens': { type: 'string' },
        'context-window': { type: 'string' },
        'warn-cost': { type: 'string' },
        'idle-timeout': { type: 'string' },
        'probe-timeout': { type: 'string' },
        store: { type: 'string' },
        sandbox: { type: 'string' },
        images: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        'approve-all': { type: 'boolean' },
        interactive: { type: 'boolean', short: 'i' },
        worktree: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const values = parsed.values;
  const numbers: Record<string, number | undefined> = {};
  const wholeNumbers: Array<[string, string | undefined, number]> = [
    ['max-turns', values['max-turns'], 1],
    ['max-output-tokens', values['max-output-tokens'], 16],
    ['context-window', values['context-window'] ?? (env.OPENAGENT_CONTEXT_WINDOW || undefined), 256],
    ['idle-timeout', values['idle-timeout'] ?? (env.OPENAGENT_STREAM_IDLE_TIMEOUT || undefined), 1],
    ['probe-timeout', values['probe-timeout'] ?? (env.OPENAGENT_PROBE_TIMEOUT || undefined), 1],
  ];
  for (const [flag, text, minimum] of wholeNumbers) {
    if (text === undefined) continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < minimum)
      return { ok: false, message: `--${flag} needs a whole number of at least ${minimum}, not "${text}".` };
    numbers[flag] = value;
  }
  const warnCostText = values['warn-cost'] ?? (env.OPENAGENT_CALL_COST_WARNING_USD || undefined);
  const warnCost = warnCostText === undefined ? DEFAULT_CALL_COST_WARNING_USD : Number(warnCostText);
  if (warnCostText !== undefined && (!/^\s*[\d.]+\s*$/.test(warnCostText) || !Number.isFinite(warnCost)))
    return { ok: false, message: `--warn-cost needs an amount in US dollars (0 for never), not "${warnCostText}".` };
  const sandbox = values.sandbox ?? (env.OPENAGENT_SANDBOX || 'auto');
  if (!(SANDBOX_MODES as readonly string[]).includes(sandbox))
    return { ok: false, message: `--sandbox is auto, required or off, not "${sandbox}".` };
  const images = values.images ?? (env.OPENAGENT_IMAGES || 'auto');
  if (!(ACCEPTS_IMAGES_CHOICES as readonly string[]).includes(images))
    return { ok: false, message: `--images is auto, yes or no, not "${images}".` };
  const worktree = values.worktree?.trim();
  if (values.worktree !== undefined && !worktree) return { ok: false, message: '--worktree needs a name.' };
  return {
    ok: true,
    options: {
      provider: values.provider ?? env.OPENAGENT_PROVIDER ?? 'anthropic',
      model: values.model ?? env.OPENAGENT_MODEL ?? '',
      baseUrl: values['base-url'] ?? env.OPENAGENT_BASE_URL ?? '',
      preset: values.preset ?? env.OPENAGENT_PRESET ?? 'coding',
      maxTurns: numbers['max-turns'],
      maxOutputTokens: numbers['max-output-tokens'],
      contextWindow: numbers['context-window'],
      callCostWarningUsd: warnCost,
      idleTimeout: numbers['idle-timeout'],
      probeTimeout: numbers['probe-timeout'],
      storeDirectory: path.resolve(
        values.store ?? (env.OPENAGENT_STORE || path.join(os.homedir(), '.openagent', 'store')),
      ),
      worktree,
      sandbox: sandbox as SandboxMode,
      images: images as AcceptsImagesChoice,
      approveAll: Boolean(values.yes || values['approve-all']),
      interactive: Boolean(values.interactive),
      help: Boolean(values.help),
      prompt: parsed.positionals.join(' ').trim(),
    },
  };
}
