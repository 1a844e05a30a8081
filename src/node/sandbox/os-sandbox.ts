/**
 * Confined commands (SPEC 4.4): how each agent command starts, and whether it is confined now.
 * Linux: bubblewrap called directly (bubblewrap.ts). macOS: a Seatbelt profile for
 * `sandbox-exec` (seatbelt.ts; untested on a Mac). Elsewhere, or with bubblewrap missing or
 * unable to start, commands run as before (`auto`) or are refused (`required`). Confined or
 * not, every command gets an environment without secrets (command-env.ts). A protected folder
 * that did not exist cannot be bound read-only: one a confined command creates is removed
 * after it, and the output says so.
 */
import { BASH_WITHOUT_STARTUP_FILES } from '../bash-start';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandSandbox, SandboxStatus } from '../../core/ports';
import type { SandboxMode } from '../../core/policy/sandbox-modes';
import { scrubEnvironment } from '../../core/policy/command-env';
import { visibleText } from '../../core/text/visible-text';
import { bubblewrapArgs } from './bubblewrap';
import { entryState, holdsHome, protectedEntries, type ConfinementPlan } from './confinement';
import { movedAside, restoreLinks, separateLinks, standIns, takeAway } from './protected-run';
import { protectedSet, unseenNote } from './protected-set';
import { seccompFilter } from './seccomp';
import { seatbeltProfile } from './seatbelt';
import { probeAsync, probeBlocking, SANDBOX_EXEC, type Probe } from './sandbox-probe';
import { realOr } from './quiet-fs';
import { WindowsBashCache, windowsLaunch, windowsTerminalLine } from '../windows/windows-commands';
import { machinePorts, type FoundBash, type WindowsShellPorts } from '../windows/windows-shell';

export interface SandboxSettings {
  /** The strictest of the user's setting and the policies. */
  mode(): SandboxMode;
  /** Granted by the user's policy (`commands.network`). */
  network(): boolean;
  /** Secret-looking variables passed anyway (`commands.pass_env`). */
  passEnv(): readonly string[];
  /** The workspace folder. */
  root(): string | undefined;
  /** More paths to hide (the editor's storage of conversations). */
  hidden?: () => readonly string[];
  /** Windows: the bash to run commands in (`openagent.windowsShell`; else OPENAGENT_WINDOWS_SHELL). */
  windowsShell?: () => string | undefined;
}

/** How to start one command: a program, its arguments, its environment. */
export interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  confined: boolean;
  /** Files the child gets open, as descriptors 3, 4, … (the seccomp filter). */
  files: string[];
  /** After it ends: undoes what a confined command may not leave, and says so (or undefined). */
  afterRun(): string | undefined;
}

const BASH = existsSync('/bin/bash') ? '/bin/bash' : 'bash';
const BASH_FLAGS = BASH_WITHOUT_STARTUP_FILES.join(' ');
/** Where a terminal command's file is, inside the sandbox (its /run is private). */
const COMMAND_INSIDE = '/run/openagent-command';

export class OsSandbox implements CommandSandbox {
  private probed: Probe | undefined;
  private probing: Promise<void> | undefined;
  /** Placeholders in use by runs still alive: removed only when the last one ends. */
  private readonly livePlaceholders = new Map<string, number>();
  private scratchFiles: { placeholder: string; emptyFile: string; seccomp: string | undefined } | undefined;

  constructor(
    private readonly settings: SandboxSettings,
    private readonly options: {
      bwrap?: string;
      env?: NodeJS.ProcessEnv;
      home?: string;
      /**
       * The account's home folder (the password database's), hidden too where it is not `home`:
       * `HOME` set elsewhere (`sudo -E`, a script) must not leave the real one readable.
       */
      accountHome?: string;
      platform?: NodeJS.Platform;
      /** Windows: how the machine is read to find bash (tests give their own). */
      windowsPorts?: WindowsShellPorts;
    } = {},
  ) {}

  private readonly windowsBashes = new WindowsBashCache(
    () => this.options.windowsPorts ?? machinePorts(this.options.env),
  );

  /** On Windows, the bash commands run in, or why there is none; undefined elsewhere. */
  windowsBash(): FoundBash | undefined {
    if (this.platform() !== 'win32') return undefined;
    const env = this.options.env ?? process.env;
    return this.windowsBashes.find(this.settings.windowsShell?.() ?? env.OPENAGENT_WINDOWS_SHELL);
  }

  status(): SandboxStatus {
    const mode = this.settings.mode();
    const network = this.settings.network();
    if (mode === 'off') return { mode, confined: false, network, detail: 'the sandbox is off (sandbox: off)' };
    const root = this.realRoot();
    const probe: Probe =
      root && this.homes().some((home) => holdsHome(root, home))
        ? { ok: false, why: 'the workspace holds your home folder, whose secrets a sandbox could not hide' }
        : this.probe();
    if (probe.ok) return { mode, confined: true, network, detail: probe.version };
    const detail = `commands are not confined: ${probe.why}`;
    if (mode !== 'required') return { mode, confined: false, network, detail };
    return {
      mode,
      confined: false,
      network,
      detail,
      refusal: `Commands must run confined (sandbox: required), but ${probe.why}. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap) or set sandbox: auto.`,
    };
  }

  /**
   * Probes the sandbox without blocking the process (status() would, the first time): the
   * editor calls it before the first prompt and when the chat shows, so that neither waits on
   * bubblewrap starting. Settles when status() has its answer; never rejects.
   */
  probeInBackground(): Promise<void> {
    if (this.settings.mode() === 'off') return Promise.resolve();
    this.probing ??= probeAsync(this.platform(), this.bwrap()).then((probe) => {
      this.probed ??= probe;
    });
    return this.probing;
  }

  /** The status if the sandbox was already probed (no blocking check): for the status bar. */
  peek(): SandboxStatus | undefined {
    return this.probed || this.settings.mode() === 'off' ? this.status() : undefined;
  }

  /** How to run `command`: confined unless the sandbox is off or missing, or the user let it out. */
  launch(command: string, options: { cwd?: string; unconfined?: boolean; marker?: string }): Launch {
    const env = this.environment(options.marker);
    const status = this.status();
    if (status.refusal !== undefined) throw new Error(status.refusal);
    // Let out only where the mode allows it: `required` never runs anything unconfined.
    if (!status.confined || (options.unconfined && status.mode !== 'required')) {
      const windows = this.windowsBash();
      const plain = windows
        ? windowsLaunch(windows, command, options.cwd, env)
        : { file: BASH, args: [...BASH_WITHOUT_STARTUP_FILES, '-c', command], env };
      return { ...plain, confined: false, files: [], afterRun: () => undefined };
    }
    const root = this.realRoot();
    const before = root ? protectedEntries(root) : [];
    const set = root ? protectedSet(root) : undefined;
    // A protected file with other names (hard links) is separated from them first: a write
    // through another name, which the sandbox cannot see, then changes only that name.
    const separated = set ? separateLinks(set) : undefined;
    const plan: ConfinementPlan = {
      root,
      entries: before,
      cwd: options.cwd ?? root ?? process.cwd(),
      env,
      network: status.network,
      home: this.home(),
      otherHomes: this.homes().filter((home) => home !== this.home()),
      hidden: this.settings.hidden?.() ?? [],
      placeholder: this.scratch().placeholder,
      emptyFile: this.scratch().emptyFile,
      pathDirectories: (env.PATH ?? '').split(path.delimiter).filter(Boolean),
      ...(set ? { protectedSet: set } : {}),
    };
    const notes = (restored: string | undefined) =>
      [separated, set && unseenNote(set), restored, set && restoreLinks(set), set && movedAside(set)]
        .filter(Boolean)
        .join('\n') || undefined;
    if (this.platform() === 'darwin') {
      const afterRun = () => notes(restoreProtected(before, []));
      return {
        file: SANDBOX_EXEC,
        args: ['-p', seatbeltProfile(plan), BASH, ...BASH_WITHOUT_STARTUP_FILES, '-c', command],
        env,
        confined: true,
        files: [],
        afterRun,
      };
    }
    const filter = this.scratch().seccomp;
    // Missing places the set names get an empty stand-in, bound read-only like the rest.
    const made = set ? standIns(set) : [];
    const { args, placeholders } = bubblewrapArgs(plan, filter ? 3 : undefined);
    // A placeholder another live run made is this run's too: it must outlive both (taking a
    // mount point away in one mount namespace drops that mount in every other).
    const held = [
      ...placeholders,
      ...made,
      ...[...before.map((entry) => entry.absolute), ...(set?.paths.map((entry) => entry.absolute) ?? [])].filter(
        (entry) => this.livePlaceholders.has(entry),
      ),
    ];
    for (const placeholder of held)
      this.livePlaceholders.set(placeholder, (this.livePlaceholders.get(placeholder) ?? 0) + 1);
    let released = false;
    return {
      file: this.options.bwrap ?? 'bwrap',
      args: [...args, '--', BASH, ...BASH_WITHOUT_STARTUP_FILES, '-c', command],
      env,
      confined: true,
      files: filter ? [filter] : [],
      afterRun: () => {
        if (released) return undefined;
        released = true;
        const last = held.filter((placeholder) => {
          const count = (this.livePlaceholders.get(placeholder) ?? 1) - 1;
          if (count > 0) this.livePlaceholders.set(placeholder, count);
          else this.livePlaceholders.delete(placeholder);
          return count <= 0;
        });
        return notes(restoreProtected(before, last));
      },
    };
  }

  /**
   * The same, as one line for the integrated terminal. No character of the command is typed:
   * it is in a file the line names (shown first, escaped), so the user's interactive shell —
   * its quoting rules (fish), completion on a TAB, history expansion, aliases — plays no part.
   * The sandbox starts with an empty environment (`env -i`: the interactive shell's own
   * variables stay out of it) and no terminal to read from.
   */
  terminalLine(
    command: string,
    options: { cwd?: string; unconfined?: boolean },
  ): { line: string; afterRun(): string | undefined } {
    const launch = this.launch(command, options);
    const windows = this.windowsBash();
    if (windows) {
      const typed = windowsTerminalLine(windows, command, options.cwd ?? this.settings.root());
      return { line: typed.line, afterRun: () => (typed.cleanup(), undefined) };
    }
    const folder = mkdtempSync(path.join(os.tmpdir(), 'openagent-run-'));
    const script = path.join(folder, 'command');
    writeFileSync(script, `printf '%s\\n' ${shellQuote(`$ ${visibleText(command)}`)}\n${command}\n`, { mode: 0o600 });
    const cleanup = () => rmSync(folder, { recursive: true, force: true });
    if (!launch.confined) {
      // Unconfined too, the command gets the scrubbed environment, not the terminal shell's (its
      // rc files may export keys, its BASH_ENV may run more): it starts empty (`env -i`) and
      // exports the kept variables from a file, before the command.
      const environment = path.join(folder, 'environment');
      writeFileSync(
        environment,
        Object.entries(launch.env)
          .map(([name, value]) => `${name}=${value}\0`)
          .join(''),
        { mode: 0o600 },
      );
      writeFileSync(
        script,
        `while IFS= read -r -d '' openagent_variable; do export "$openagent_variable" 2>/dev/null; done < ${shellQuote(environment)}\nunset openagent_variable\n${readFileSync(script, 'utf8')}`,
        { mode: 0o600 },
      );
      return {
        line: `env -i ${BASH} ${BASH_FLAGS} ${shellQuote(script)} </dev/null`,
        afterRun: () => (cleanup(), undefined),
      };
    }
    const file = path.join(folder, 'options');
    let line: string;
    if (launch.file === SANDBOX_EXEC) {
      writeFileSync(file, launch.args[1]!, { mode: 0o600 });
      line = `${SANDBOX_EXEC} -f ${shellQuote(file)} ${BASH} ${BASH_FLAGS} ${shellQuote(script)} </dev/null`;
    } else {
      // The options are descriptor 3, the seccomp filter 4; the command file is bound in.
      const separator = launch.args.indexOf('--');
      const sandboxOptions = launch.args
        .slice(0, separator)
        .map((arg, at, all) => (all[at - 1] === '--seccomp' ? '4' : arg));
      sandboxOptions.push('--ro-bind', script, COMMAND_INSIDE);
      writeFileSync(file, `${sandboxOptions.join('\0')}\0`, { mode: 0o600 });
      const filter = launch.files[0] ? ` 4<${shellQuote(launch.files[0])}` : '';
      line = `env -i ${launch.file} --args 3 -- ${BASH} ${BASH_FLAGS} ${COMMAND_INSIDE} 3<${shellQuote(file)}${filter} </dev/null`;
    }
    return {
      line,
      afterRun: () => {
        cleanup();
        return launch.afterRun();
      },
    };
  }

  /** The environment commands get: secrets removed, the run's marker added. */
  environment(marker?: string): Record<string, string> {
    const env = scrubEnvironment(this.options.env ?? process.env, this.settings.passEnv());
    if (marker !== undefined) env.OPENAGENT_RUN = marker;
    return env;
  }

  private home(): string {
    return this.options.home ?? os.homedir();
  }

  /** `home` and the account's home when it is another folder (real paths compared). */
  private homes(): string[] {
    const account = this.options.accountHome ?? (this.options.home === undefined ? accountHome() : undefined);
    const home = this.home();
    if (!account || realOr(account) === realOr(home)) return [home];
    return [home, account];
  }

  /** Written once per process: the empty placeholder folder and the seccomp filter. */
  private scratch(): { placeholder: string; emptyFile: string; seccomp: string | undefined } {
    if (!this.scratchFiles) {
      const folder = mkdtempSync(path.join(os.tmpdir(), 'openagent-sandbox-'));
      const placeholder = path.join(folder, 'empty');
      mkdirSync(placeholder, { mode: 0o555 });
      const emptyFile = path.join(folder, 'empty-file');
      writeFileSync(emptyFile, '', { mode: 0o444 });
      const filter = seccompFilter();
      const seccomp = filter ? path.join(folder, 'seccomp.bpf') : undefined;
      if (seccomp && filter) writeFileSync(seccomp, filter, { mode: 0o444 });
      this.scratchFiles = { placeholder, emptyFile, seccomp };
    }
    return this.scratchFiles;
  }

  private platform(): NodeJS.Platform {
    return this.options.platform ?? process.platform;
  }

  private realRoot(): string | undefined {
    const root = this.settings.root();
    if (root === undefined) return undefined;
    try {
      return realpathSync(root);
    } catch {
      return undefined;
    }
  }

  private probe(): Probe {
    this.probed ??= probeBlocking(this.platform(), this.bwrap());
    return this.probed;
  }

  private bwrap(): string {
    return this.options.bwrap ?? 'bwrap';
  }
}

/**
 * After a confined run: placeholders go (only if still empty), and a protected entry that was a
 * link and is something else now is put back (the link itself lives in the writable workspace).
 * Nothing is followed: every path is a top-level entry of the real workspace.
 */
function restoreProtected(
  before: ReturnType<typeof protectedEntries>,
  placeholders: readonly string[],
): string | undefined {
  takeAway(placeholders);
  const restored: string[] = [];
  const failed: string[] = [];
  for (const entry of before) {
    if (!entry.state.startsWith('link:') || entryState(entry.absolute) === entry.state) continue;
    try {
      rmSync(entry.absolute, { recursive: true, force: true });
      symlinkSync(entry.state.slice('link:'.length), entry.absolute);
      restored.push(entry.name);
    } catch (error) {
      failed.push(`${entry.name} (${(error as Error).message})`);
    }
  }
  const notes = [
    restored.length
      ? `[put back ${restored.join(', ')}: a confined command may not replace a protected path; ask the user to approve a command that does]`
      : '',
    failed.length ? `[could not put back ${failed.join(', ')}: check these protected paths before running git]` : '',
  ].filter(Boolean);
  return notes.length ? notes.join('\n') : undefined;
}

function accountHome(): string | undefined {
  try {
    return os.userInfo().homedir || undefined;
  } catch {
    return undefined;
  }
}

/** One word for bash, zsh and fish: single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
