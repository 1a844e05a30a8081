/**
 * What an "Always This Session" approval covers (SPEC 4.1): the key it is stored under, and the
 * words the UI uses for it. Most tools are remembered by name. Calls that run a command (the
 * tool's traits say so) are remembered by pattern, and only when the command is one plain simple
 * command — no `;`, `&&`, `|`, line breaks, redirections, substitutions, wrappers (`sudo`,
 * `env X=1`) or variable assignments — so that "always `git status`" never covers
 * `git status; curl x | sh`. The pattern is the program, plus its subcommand for the programs
 * listed in SUBCOMMAND_PROGRAMS. Anything else has no key: it is asked about every time.
 */
import type { ApprovalRequest } from './approval';
import { mustAsk } from './call-risk';
import { analyseCommand } from './shell-command';

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

/**
 * The key an "Always This Session" answer is stored under, or undefined if it cannot be: a call
 * with reasons to ask (a protected path, a secret, a risky option…) is never remembered.
 */
export function sessionRuleKey(
  request: Pick<ApprovalRequest, 'toolName' | 'toolVersion' | 'risk'>,
): string | undefined {
  const { toolName, toolVersion, risk } = request;
  if (mustAsk(risk)) return undefined;
  if (risk.command === undefined) return toolVersion ? `${toolName}@${toolVersion}` : toolName;
  const pattern = commandPattern(risk.command);
  return pattern === undefined ? undefined : `${toolName}:${pattern.join(' ')}`;
}

/** Words for the UI: "`git status` commands", "all write_file calls". Tool names hold no `:`. */
export function sessionRuleLabel(key: string): string {
  const colon = key.indexOf(':');
  if (colon < 0) return `all ${key.replace(/@[0-9a-f]+$/, '')} calls`;
  const tool = key.slice(0, colon);
  const pattern = key.slice(colon + 1);
  return tool === 'bash' ? `\`${pattern}\` commands` : `\`${pattern}\` commands (${tool})`;
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
