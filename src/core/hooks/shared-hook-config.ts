/**
 * Hook files in the shared JSON format (issue 35, item 5), read into one list of commands:
 * - Claude Code's settings (`.claude/settings.json`, `.claude/settings.local.json`,
 *   `~/.claude/settings.json`): `{ hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command",
 *   command, timeout }] }] } }`;
 * - `.github/hooks/*.json` as VS Code reads it (PascalCase events; an entry is a command with
 *   `command` and `linux` / `osx` / `windows` overrides, `cwd`, `env`, `timeout`) or as the
 *   Copilot CLI does (`version: 1`, camelCase events, `bash` / `powershell`, `timeoutSec`).
 * Events we run: PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart (and the Copilot
 * names for them). Everything else (other events, `prompt` or `http` hooks, matchers we cannot
 * match safely) is reported and skipped, never guessed at. Bounded: a file holds at most
 * MAX_HOOKS_PER_FILE commands; the rest are reported.
 */
import { visibleText } from '../text/visible-text';
import { matcherProblem } from './shared-hook-tools';

export type SharedHookEvent = 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit' | 'Stop' | 'SessionStart';

export interface SharedHook {
  /** Where it was defined, as shown to the user: `.claude/settings.json`, `~/.claude/settings.json`. */
  source: string;
  /** A repository's hooks need a trusted workspace and the user's allow; the user's own do not. */
  scope: 'workspace' | 'user';
  event: SharedHookEvent;
  /** Tool names it applies to ('' for all; only tool events have one). */
  matcher: string;
  /** The shell command line (run by bash). */
  command: string;
  /** Its own timeout, if it gave one (the runner caps it). */
  timeoutSeconds?: number;
  /** Its working folder, relative to the workspace root. */
  cwd?: string;
  env?: Record<string, string>;
  /** Copilot CLI files get its field names on stdin too (`toolName`, `toolArgs`). */
  dialect: 'claude' | 'copilot';
}

export const MAX_HOOKS_PER_FILE = 100;
export const MAX_COMMAND_CHARS = 10_000;
/** Bigger hook files are not read (the node side caps the read). */
export const MAX_HOOK_FILE_BYTES = 1024 * 1024;

const EVENTS: Record<string, SharedHookEvent> = {
  PreToolUse: 'PreToolUse',
  PostToolUse: 'PostToolUse',
  UserPromptSubmit: 'UserPromptSubmit',
  Stop: 'Stop',
  SessionStart: 'SessionStart',
  // The Copilot CLI's names.
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  userPromptSubmitted: 'UserPromptSubmit',
  agentStop: 'Stop',
  sessionStart: 'SessionStart',
};

export interface ParsedHookFile {
  hooks: SharedHook[];
  problems: string[];
}

/**
 * Reads one hook file's text. `platform` picks the per-platform command (`linux`, `osx`,
 * `windows`; `bash` or `powershell`).
 */
export function parseHookFile(
  source: string,
  text: string,
  scope: SharedHook['scope'],
  platform: string = 'linux',
): ParsedHookFile {
  const problems: string[] = [];
  const hooks: SharedHook[] = [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { hooks, problems: [`${source} is not valid JSON (${(error as Error).message}); its hooks do not run.`] };
  }
  const table = isObject(data) ? data.hooks : undefined;
  if (table === undefined) return { hooks, problems };
  if (!isObject(table)) return { hooks, problems: [`${source}: "hooks" is not an object; its hooks do not run.`] };
  const dialect: SharedHook['dialect'] = isObject(data) && data.version === 1 ? 'copilot' : 'claude';
  let skipped = 0;
  for (const [name, entries] of Object.entries(table)) {
    const event = Object.hasOwn(EVENTS, name) ? EVENTS[name] : undefined;
    if (!event) {
      problems.push(`${source}: ${name} hooks are not supported by OpenAgent; they do not run.`);
      continue;
    }
    if (!Array.isArray(entries)) {
      problems.push(`${source}: ${name} is not a list; its hooks do not run.`);
      continue;
    }
    for (const entry of entries) {
      if (!isObject(entry)) {
        problems.push(`${source}: a ${name} entry is not an object.`);
        continue;
      }
      // Claude's form groups commands under a matcher; VS Code's and Copilot's list commands directly.
      const grouped = Array.isArray(entry.hooks);
      const matcher = typeof entry.matcher === 'string' ? entry.matcher : '';
      const unsafe = matcherProblem(matcher);
      if (unsafe) {
        problems.push(
          `${source}: the ${name} matcher ${JSON.stringify(matcher.slice(0, 80))} ${unsafe}; its hooks do not run.`,
        );
        continue;
      }
      for (const command of grouped ? (entry.hooks as unknown[]) : [entry]) {
        if (hooks.length >= MAX_HOOKS_PER_FILE) {
          skipped++;
          continue;
        }
        const hook = commandHook(command, { source, scope, event, matcher, dialect, platform }, problems);
        if (hook) hooks.push(hook);
      }
    }
  }
  if (skipped > 0)
    problems.push(`${source} defines more than ${MAX_HOOKS_PER_FILE} hooks: ${skipped} of them do not run.`);
  return { hooks, problems };
}

function commandHook(
  entry: unknown,
  where: Pick<SharedHook, 'source' | 'scope' | 'event' | 'matcher' | 'dialect'> & { platform: string },
  problems: string[],
): SharedHook | undefined {
  const { source, event, platform } = where;
  if (!isObject(entry)) {
    problems.push(`${source}: a ${event} hook is not an object.`);
    return undefined;
  }
  if (entry.type !== 'command') {
    problems.push(
      `${source}: ${event} hooks of type ${JSON.stringify(entry.type)} are not supported; only "command" runs.`,
    );
    return undefined;
  }
  const own = platform === 'win32' ? entry.windows : platform === 'darwin' ? entry.osx : entry.linux;
  const shell = platform === 'win32' ? entry.powershell : entry.bash;
  const command = [own, entry.command, shell].find((value) => typeof value === 'string' && value.trim() !== '');
  if (typeof command !== 'string') {
    problems.push(`${source}: a ${event} hook has no command for this platform.`);
    return undefined;
  }
  if (command.length > MAX_COMMAND_CHARS) {
    problems.push(
      `${source}: a ${event} hook's command is longer than ${MAX_COMMAND_CHARS} characters; it does not run.`,
    );
    return undefined;
  }
  const timeout = typeof entry.timeout === 'number' ? entry.timeout : entry.timeoutSec;
  const env = isObject(entry.env)
    ? Object.fromEntries(
        Object.entries(entry.env).filter((pair): pair is [string, string] => typeof pair[1] === 'string'),
      )
    : undefined;
  return {
    source,
    scope: where.scope,
    event,
    matcher: event === 'PreToolUse' || event === 'PostToolUse' ? where.matcher : '',
    command,
    dialect: where.dialect,
    ...(typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0 ? { timeoutSeconds: timeout } : {}),
    ...(typeof entry.cwd === 'string' && entry.cwd !== '' ? { cwd: entry.cwd } : {}),
    ...(env && Object.keys(env).length > 0 ? { env } : {}),
  };
}

/**
 * What the user allows, word for word: the file, the event, the matcher, the command, its
 * folder, environment and timeout (a longer one lets it do more). Any change to one of them is
 * another hook, asked about again. (The files it runs count too: src/node/shared-hook-files.ts.)
 */
export function hookIdentity(hook: SharedHook): string {
  return JSON.stringify([
    hook.source,
    hook.event,
    hook.matcher,
    hook.command,
    hook.cwd ?? '',
    hook.env ?? {},
    hook.timeoutSeconds ?? null,
  ]);
}

/**
 * How a notice names it: `cmd` from .claude/settings.json on PreToolUse(Bash). Every character
 * that could hide or fake text (a `\r`, an ANSI escape, a bidi override) is shown escaped.
 */
export function describeHook(hook: SharedHook): string {
  const command = visibleText(hook.command, { keepNewlines: false });
  const shown = command.length > 200 ? `${command.slice(0, 199)}…` : command;
  const on = hook.matcher ? `${hook.event}(${hook.matcher})` : hook.event;
  return `\`${shown}\` from ${visibleText(hook.source, { keepNewlines: false })} on ${on}`;
}

/**
 * Everything the user allows, as the allow question shows it: the whole command (never cut:
 * what is not shown would run unseen), where it is defined, its event and matcher, its folder and
 * its environment (a variable such as BASH_ENV or GIT_CONFIG_PARAMETERS makes a harmless-looking
 * command run other code), each hiding character escaped.
 */
export function describeHookInFull(hook: SharedHook): string {
  const visible = (text: string) => visibleText(text, { keepNewlines: false });
  const on = hook.matcher ? `${hook.event}(${hook.matcher})` : hook.event;
  const env = Object.entries(hook.env ?? {}).map(([name, value]) => `${visible(name)}=${visible(value)}`);
  return [
    `\`${visible(hook.command)}\` from ${visible(hook.source)} on ${on}`,
    hook.cwd !== undefined ? ` in the folder ${visible(hook.cwd)}` : '',
    env.length > 0 ? ` with the environment ${env.join(' ')}` : '',
  ].join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
