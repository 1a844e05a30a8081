/**
 * Confined commands on Linux (SPEC 4.4), with bubblewrap called directly (ARCHITECTURE.md:
 * ~15 ms a command, a private /tmp, `--clearenv`, no stub files left behind). Inside:
 * - the whole file system read-only, the workspace writable, and inside it the paths that make
 *   code run later or change the agent's rules (`.git/hooks`, `.git/config`, `.openagent`,
 *   `.vscode`, CI workflows, hook folders, `.env*`) read-only;
 * - secrets of the home folder hidden (`~/.ssh`, `~/.aws`, `~/.gnupg`, cloud and registry
 *   credentials, shell history, OpenAgent's own store);
 * - a private /tmp, /run and $XDG_RUNTIME_DIR (no host socket: Docker, D-Bus, ssh-agent), its
 *   own PID namespace and /proc (no host process visible), a new session (no typing into the
 *   user's terminal);
 * - no network unless the user's policy grants it (a new network namespace: 127.0.0.1 is the
 *   sandbox's own, abstract sockets are unreachable);
 * - an environment with secrets removed (command-env.ts).
 * A protected folder that does not exist yet cannot be bound; one a confined command creates
 * is removed after it and the output says so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandSandbox, SandboxStatus } from '../../core/ports';
import type { SandboxMode } from '../../core/policy/agent-policy';
import { scrubEnvironment } from '../../core/policy/command-env';

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
}

/** How to start one command: a program, its arguments, its environment. */
export interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  confined: boolean;
  /** After it ends: undoes what a confined command may not leave, and says so (or undefined). */
  afterRun(): string | undefined;
}

/** Inside the workspace: read-only for confined commands. */
const PROTECTED_INSIDE = [
  '.git/hooks',
  '.git/config',
  '.openagent',
  '.vscode',
  '.github/workflows',
  '.husky',
  '.githooks',
  '.devcontainer',
];
/** Folders that, created by a confined command, are removed after it. */
const PROTECTED_FOLDERS = [
  '.openagent',
  '.vscode',
  '.github/workflows',
  '.husky',
  '.githooks',
  '.devcontainer',
  '.git/hooks',
];
/** In the home folder: hidden from confined commands. */
const HOME_SECRETS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.azure',
  '.kube',
  '.docker',
  '.openagent',
  '.password-store',
  '.local/share/keyrings',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.config/openagent',
];

const BASH = existsSync('/bin/bash') ? '/bin/bash' : 'bash';

export class BubblewrapSandbox implements CommandSandbox {
  private probed: { ok: true; version: string } | { ok: false; why: string } | undefined;

  constructor(
    private readonly settings: SandboxSettings,
    private readonly options: {
      bwrap?: string;
      env?: NodeJS.ProcessEnv;
      home?: string;
      platform?: NodeJS.Platform;
    } = {},
  ) {}

  status(): SandboxStatus {
    const mode = this.settings.mode();
    const network = this.settings.network();
    if (mode === 'off') return { mode, confined: false, network, detail: 'the sandbox is off (sandbox: off)' };
    const probe = this.probe();
    if (probe.ok) return { mode, confined: true, network, detail: probe.version };
    const detail = `commands are not confined: ${probe.why}`;
    if (mode === 'required')
      return {
        mode,
        confined: false,
        network,
        detail,
        refusal: `Commands must run confined (sandbox: required), but ${probe.why}. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap) or set sandbox: auto.`,
      };
    return { mode, confined: false, network, detail };
  }

  /** The status if the sandbox was already probed (no blocking check): for the status bar. */
  peek(): SandboxStatus | undefined {
    return this.probed || this.settings.mode() === 'off' ? this.status() : undefined;
  }

  /** How to run `command`: confined unless the sandbox is off or missing, or the user let it out. */
  launch(command: string, options: { cwd?: string; unconfined?: boolean; marker?: string }): Launch {
    const env = this.environment(options.marker);
    const status = this.status();
    if (status.refusal !== undefined && !options.unconfined) throw new Error(status.refusal);
    if (!status.confined || options.unconfined) {
      return { file: BASH, args: ['-c', command], env, confined: false, afterRun: () => undefined };
    }
    const root = this.realRoot();
    const missing = root ? PROTECTED_FOLDERS.filter((folder) => !existsSync(path.join(root, folder))) : [];
    const args = [
      ...this.bubblewrapOptions(options.cwd ?? root ?? process.cwd(), env, status.network),
      '--',
      BASH,
      '-c',
      command,
    ];
    return {
      file: this.options.bwrap ?? 'bwrap',
      args,
      env,
      confined: true,
      afterRun: () => (root ? removeCreated(root, missing) : undefined),
    };
  }

  /**
   * The same, as one line for the integrated terminal: the options go in a file bubblewrap reads
   * (`--args`), so the line shows the command itself.
   */
  terminalLine(
    command: string,
    options: { cwd?: string; unconfined?: boolean },
  ): { line: string; afterRun(): string | undefined } | undefined {
    const launch = this.launch(command, options);
    if (!launch.confined) return undefined;
    const separator = launch.args.indexOf('--');
    const folder = mkdtempSync(path.join(os.tmpdir(), 'openagent-sandbox-'));
    const file = path.join(folder, 'args');
    writeFileSync(file, `${launch.args.slice(0, separator).join('\0')}\0`, { mode: 0o600 });
    return {
      line: `${launch.file} --args 3 -- ${BASH} -c ${shellQuote(command)} 3<${shellQuote(file)}`,
      afterRun: () => {
        rmSync(folder, { recursive: true, force: true });
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

  private bubblewrapOptions(cwd: string, env: Record<string, string>, network: boolean): string[] {
    const args = [
      '--die-with-parent',
      '--new-session',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
    ];
    if (!network) args.push('--unshare-net');
    args.push(
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/var/tmp',
      '--tmpfs',
      '/run',
    );
    // With the network granted, name resolution may live under /run (systemd-resolved).
    if (network && existsSync('/run/systemd/resolve'))
      args.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
    const runtime = env.XDG_RUNTIME_DIR;
    if (runtime && !runtime.startsWith('/run/') && existsSync(runtime)) args.push('--tmpfs', runtime);
    const home = this.options.home ?? os.homedir();
    for (const secret of [...HOME_SECRETS.map((name) => path.join(home, name)), ...(this.settings.hidden?.() ?? [])]) {
      const kind = kindOf(secret);
      if (kind === 'folder') args.push('--tmpfs', secret);
      else if (kind === 'file') args.push('--ro-bind', '/dev/null', secret);
    }
    const root = this.realRoot();
    if (root) {
      args.push('--bind', root, root);
      for (const inside of [...PROTECTED_INSIDE, ...envFiles(root)]) {
        const absolute = path.join(root, inside);
        const real = kindOf(absolute) === undefined ? undefined : realpathSync(absolute);
        // A link that leads out of the workspace is read-only anyway.
        if (real !== undefined && (real === root || real.startsWith(`${root}${path.sep}`)))
          args.push('--ro-bind', real, real);
      }
    }
    args.push('--chdir', cwd, '--clearenv');
    for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
    return args;
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

  private probe(): { ok: true; version: string } | { ok: false; why: string } {
    if (this.probed) return this.probed;
    const platform = this.options.platform ?? process.platform;
    if (platform !== 'linux') {
      this.probed = { ok: false, why: `there is no sandbox for ${platform} yet` };
      return this.probed;
    }
    const bwrap = this.options.bwrap ?? 'bwrap';
    const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5_000 });
    if (version.error || version.status !== 0) {
      this.probed = { ok: false, why: 'bubblewrap (bwrap) is not installed' };
      return this.probed;
    }
    // Installed is not enough: user namespaces may be turned off.
    const trial = spawnSync(
      bwrap,
      ['--ro-bind', '/', '/', '--unshare-net', '--unshare-pid', '--proc', '/proc', '--', '/bin/true'],
      {
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    this.probed =
      trial.status === 0
        ? { ok: true, version: version.stdout.trim() }
        : {
            ok: false,
            why: `bubblewrap cannot start here (${(trial.stderr || String(trial.error ?? '')).trim().split('\n')[0]})`,
          };
    return this.probed;
  }
}

function kindOf(absolute: string): 'file' | 'folder' | undefined {
  try {
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) {
      const real = realpathSync(absolute);
      return lstatSync(real).isDirectory() ? 'folder' : 'file';
    }
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

/** `.env`, `.env.local`…, in the workspace root. */
function envFiles(root: string): string[] {
  try {
    return readdirSync(root).filter((name) => /^\.env/i.test(name));
  } catch {
    return [];
  }
}

function removeCreated(root: string, missing: readonly string[]): string | undefined {
  const created = missing.filter((folder) => existsSync(path.join(root, folder)));
  for (const folder of created) rmSync(path.join(root, folder), { recursive: true, force: true });
  return created.length
    ? `[removed ${created.join(', ')}: a confined command may not create protected folders; ask the user to approve a command that does]`
    : undefined;
}

/** One word for bash, zsh and fish: single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
