/**
 * What an "Always This Session" approval covers (SPEC 4.1): the key it is stored under, and the
 * words the UI uses for it. Most tools are remembered by name. Commands (`bash`,
 * `background_run`) are remembered by pattern, and only when the command is one plain simple
 * command — no `;`, `&&`, `|`, line breaks, redirections, substitutions, wrappers (`sudo`,
 * `env X=1`) or variable assignments — so that "always `git status`" never covers
 * `git status; curl x | sh`. The pattern is the program, plus its subcommand for the programs
 * listed in SUBCOMMAND_PROGRAMS. Anything else has no key: it is asked about every time.
 */
import { analyseCommand } from './shell-command';

/** Tools whose input is a shell command line in `command`. */
const COMMAND_TOOLS = new Set(['bash', 'background_run']);

/**
 * Programs whose first argument says what they do (`git status` vs `git push`), so an approval
 * covers that subcommand only. An option before it (`git -c x=y status`) could change what it
 * does, so such a command gets no key. Shells and interpreters are here for the same reason:
 * `bash build.sh` must not cover `bash other.sh`.
 */
const SUBCOMMAND_PROGRAMS = new Set([
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'make',
  'pip',
  'python',
  'python3',
  'node',
  'bash',
  'sh',
]);

/** Package-manager subcommands that run a named script: `npm run build` ≠ `npm run deploy`. */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const SCRIPT_SUBCOMMANDS = new Set(['run', 'run-script', 'exec', 'x', 'dlx']);

/** A word safe to put in a key: no option, quoting, variable, glob or whitespace. */
const PLAIN = /^[\w@%+=:,./][\w@%+=:,./-]*$/;

/** The key an "Always This Session" answer is stored under, or undefined if it cannot be. */
export function sessionRuleKey(toolName: string, input: unknown, toolVersion?: string): string | undefined {
  if (!COMMAND_TOOLS.has(toolName)) return toolVersion ? `${toolName}@${toolVersion}` : toolName;
  const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
  if (typeof command !== 'string') return undefined;
  const pattern = commandPattern(command);
  return pattern === undefined ? undefined : `${toolName}:${pattern.join(' ')}`;
}

/** Words for the UI: "`git status` commands", "all write_file calls". */
export function sessionRuleLabel(key: string): string {
  const colon = key.indexOf(':');
  const tool = colon < 0 ? key : key.slice(0, colon);
  if (colon < 0 || !COMMAND_TOOLS.has(tool)) return `all ${key.replace(/@[0-9a-f]+$/, '')} calls`;
  const pattern = key.slice(colon + 1);
  return tool === 'bash' ? `\`${pattern}\` commands` : `\`${pattern}\` commands in the background`;
}

function commandPattern(command: string): string[] | undefined {
  const analysis = analyseCommand(command);
  if (!analysis.ok || analysis.substitutions || analysis.hidden) return undefined;
  if (analysis.operators.length > 0 || analysis.redirections.length > 0) return undefined;
  const [segment, ...others] = analysis.segments;
  if (segment === undefined || others.length > 0) return undefined;
  const [program, first, second] = segment.argv;
  // Wrappers and assignments (`sudo git`, `PAGER=x git`) change how the program runs.
  if (program === undefined || program !== segment.program || !PLAIN.test(program)) return undefined;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (!SUBCOMMAND_PROGRAMS.has(name) || first === undefined) return [program];
  if (name.startsWith('python') && first === '-m')
    return second !== undefined && PLAIN.test(second) ? [program, first, second] : undefined;
  if (!PLAIN.test(first)) return undefined;
  if (PACKAGE_MANAGERS.has(name) && SCRIPT_SUBCOMMANDS.has(first) && second !== undefined) {
    return PLAIN.test(second) ? [program, first, second] : undefined;
  }
  return [program, first];
}
