/**
 * How agent commands start on Windows, where there is no sandbox: in the bash windows-shell.ts
 * found (Git Bash or WSL), as a child process or as one line typed into the OpenAgent terminal
 * (whose shell is that bash). The command's environment is the scrubbed one (no secrets); in
 * the terminal it is the terminal's, whose secret variables were unset when it was created.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { visibleText } from '../../core/text/visible-text';
import {
  commandLaunch,
  findWindowsBash,
  toShellPath,
  type FoundBash,
  type WindowsBash,
  type WindowsShellPorts,
} from './windows-shell';

/** The bash found for a setting, looked for again only when the setting changes. */
export class WindowsBashCache {
  private last: { setting: string | undefined; found: FoundBash } | undefined;

  constructor(private readonly ports: () => WindowsShellPorts) {}

  find(setting: string | undefined): FoundBash {
    if (!this.last || this.last.setting !== setting)
      this.last = { setting, found: findWindowsBash(setting, this.ports()) };
    return this.last.found;
  }
}

/** A command as a child process of the found bash; without one, the error says what to install. */
export function windowsLaunch(
  found: FoundBash,
  command: string,
  cwd: string | undefined,
  env: Record<string, string>,
): { file: string; args: string[]; env: Record<string, string> } {
  if ('missing' in found) throw new Error(found.missing);
  const launch = commandLaunch(found.bash, command, cwd);
  return { file: launch.file, args: launch.args, env: { ...env, ...launch.env } };
}

/**
 * The line typed into the OpenAgent terminal: no character of the command is typed (it is in a
 * file, as on Linux), the file first changes to the working folder as the shell names it.
 */
export function windowsTerminalLine(
  found: FoundBash,
  command: string,
  cwd: string | undefined,
  temporaryFolder: string = os.tmpdir(),
): { line: string; cleanup(): void } {
  if ('missing' in found) throw new Error(found.missing);
  const kind = found.bash.kind;
  const folder = mkdtempSync(path.join(temporaryFolder, 'openagent-run-'));
  const script = path.join(folder, 'command');
  try {
    writeFileSync(script, windowsScript(command, cwd, kind), { mode: 0o600 });
    return { line: windowsLine(script, kind), cleanup: () => rmSync(folder, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/** The command file: into the working folder (as the shell names it), the command shown, then run. */
export function windowsScript(command: string, cwd: string | undefined, kind: WindowsBash['kind']): string {
  const enter = cwd ? `cd -- ${bashQuote(toShellPath(cwd, kind))} || exit 1\n` : '';
  return `${enter}printf '%s\\n' ${bashQuote(`$ ${visibleText(command)}`)}\n${command}\n`;
}

/** The line typed: the terminal's own bash runs the file, reading nothing from the terminal. */
export function windowsLine(script: string, kind: WindowsBash['kind']): string {
  return `"$BASH" ${bashQuote(toShellPath(script, kind))} </dev/null`;
}

function bashQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
