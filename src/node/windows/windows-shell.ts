/**
 * The bash that agent commands run in on Windows. The command analyser reads every command as
 * bash, so on Windows it runs in a bash the user has: Git for Windows' (Git Bash) or WSL's.
 * Order: the setting `openagent.windowsShell` (a path to bash.exe, `git-bash`, `wsl` or
 * `wsl:<distribution>`), then Git Bash in its usual places and next to the git.exe on PATH, then
 * WSL with a distribution installed. `bash.exe` on PATH is never taken at face value:
 * `C:\Windows\System32\bash.exe` is WSL's launcher, and is named WSL when the setting points at
 * it. Everything here reads the machine through WindowsShellPorts, so it is tested on Linux.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

const win = path.win32;

export interface WindowsShellPorts {
  /** The environment (names compared case-insensitively, as Windows does). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether a file exists. */
  exists(file: string): boolean;
  /** WSL's installed distributions (`wsl.exe --list --quiet`); undefined when it cannot be asked. */
  wslDistributions?(): readonly string[] | undefined;
}

export interface WindowsBash {
  kind: 'git-bash' | 'wsl';
  /** bash.exe for Git Bash; wsl.exe for WSL. */
  path: string;
  /** WSL: the distribution named in the setting (else WSL's default one). */
  distribution?: string;
  /** How it was found, for the user: "openagent.windowsShell", "Git for Windows", "WSL". */
  source: string;
}

export type FoundBash = { bash: WindowsBash } | { missing: string };

/** How to point the setting at a bash, shown whenever none is found. */
const HOW_TO =
  'Install Git for Windows (https://git-scm.com/download/win, which brings Git Bash) or WSL (`wsl --install` in an administrator terminal), ' +
  'or set `openagent.windowsShell` to the path of a bash.exe (for example C:\\Program Files\\Git\\bin\\bash.exe), to `git-bash`, or to `wsl`. ' +
  'Everything else (reading, searching and editing files) works without it.';

export function findWindowsBash(setting: string | undefined, ports: WindowsShellPorts): FoundBash {
  const chosen = setting?.trim();
  if (chosen) return fromSetting(chosen, ports);
  const git = findGitBash(ports);
  if (git) return { bash: { kind: 'git-bash', path: git, source: 'Git for Windows' } };
  const wsl = findWsl(ports, undefined);
  if ('bash' in wsl) return wsl;
  return { missing: `Commands need bash, and none was found on this Windows machine (${wsl.missing}). ${HOW_TO}` };
}

function fromSetting(setting: string, ports: WindowsShellPorts): FoundBash {
  const lowered = setting.toLowerCase();
  if (lowered === 'git-bash') {
    const git = findGitBash(ports);
    return git
      ? { bash: { kind: 'git-bash', path: git, source: 'openagent.windowsShell (git-bash)' } }
      : { missing: `openagent.windowsShell is "git-bash", but Git for Windows' bash.exe was not found. ${HOW_TO}` };
  }
  if (lowered === 'wsl' || lowered.startsWith('wsl:')) {
    const distribution = lowered === 'wsl' ? undefined : setting.slice('wsl:'.length).trim() || undefined;
    const wsl = findWsl(ports, distribution);
    return 'bash' in wsl
      ? { bash: { ...wsl.bash, source: `openagent.windowsShell (${setting})` } }
      : { missing: `openagent.windowsShell is "${setting}", but ${wsl.missing}. ${HOW_TO}` };
  }
  if (!win.isAbsolute(setting) || !/^([a-zA-Z]:[\\/]|\\\\)/.test(setting))
    return {
      missing: `openagent.windowsShell must be a full path to bash.exe, "git-bash" or "wsl"; it is "${setting}". ${HOW_TO}`,
    };
  if (!ports.exists(setting))
    return { missing: `openagent.windowsShell points at ${setting}, which does not exist. ${HOW_TO}` };
  if (isWslLauncher(setting, ports)) {
    // System32\bash.exe starts WSL: it is run as WSL (paths under /mnt/c), and said to be.
    const wsl = findWsl(ports, undefined);
    return 'bash' in wsl
      ? { bash: { ...wsl.bash, source: `openagent.windowsShell (${setting} is WSL's launcher, used as WSL)` } }
      : {
          missing: `openagent.windowsShell points at ${setting}, which is WSL's launcher, but ${wsl.missing}. ${HOW_TO}`,
        };
  }
  return { bash: { kind: 'git-bash', path: setting, source: 'openagent.windowsShell' } };
}

/** Git for Windows' bash.exe in its usual places, then next to the git.exe on PATH. */
export function findGitBash(ports: WindowsShellPorts): string | undefined {
  const roots: string[] = [];
  for (const variable of ['ProgramW6432', 'ProgramFiles', 'ProgramFiles(x86)']) {
    const folder = variableOf(ports.env, variable);
    if (folder) roots.push(win.join(folder, 'Git'));
  }
  const localAppData = variableOf(ports.env, 'LOCALAPPDATA');
  if (localAppData) roots.push(win.join(localAppData, 'Programs', 'Git'));
  const profile = variableOf(ports.env, 'USERPROFILE');
  if (profile) roots.push(win.join(profile, 'scoop', 'apps', 'git', 'current'));
  for (const folder of (variableOf(ports.env, 'PATH') ?? '').split(';')) {
    const directory = folder.trim().replace(/^"(.*)"$/, '$1');
    if (!directory || !win.isAbsolute(directory) || !ports.exists(win.join(directory, 'git.exe'))) continue;
    roots.push(gitRoot(directory));
  }
  for (const root of roots) {
    for (const candidate of [win.join(root, 'bin', 'bash.exe'), win.join(root, 'usr', 'bin', 'bash.exe')])
      if (!isWslLauncher(candidate, ports) && ports.exists(candidate)) return candidate;
  }
  return undefined;
}

/** The Git installation holding a folder with git.exe: `<root>\cmd`, `<root>\bin`, `<root>\mingw64\bin`. */
function gitRoot(directory: string): string {
  const normalized = win.normalize(directory).replace(/\\+$/, '');
  const parent = win.dirname(normalized);
  if (/^(mingw(32|64)|clang(32|64|arm64)|ucrt64)$/i.test(win.basename(parent))) return win.dirname(parent);
  return parent;
}

function findWsl(ports: WindowsShellPorts, distribution: string | undefined): FoundBash {
  const systemRoot = variableOf(ports.env, 'SystemRoot') ?? variableOf(ports.env, 'windir') ?? 'C:\\Windows';
  const wsl = win.join(systemRoot, 'System32', 'wsl.exe');
  if (!ports.exists(wsl)) return { missing: 'WSL is not installed' };
  const installed = ports.wslDistributions?.();
  if (installed !== undefined) {
    if (installed.length === 0)
      return { missing: 'WSL has no Linux distribution installed (`wsl --install -d Ubuntu` installs one)' };
    if (distribution && !installed.some((name) => name.toLowerCase() === distribution.toLowerCase()))
      return { missing: `WSL has no distribution named "${distribution}" (installed: ${installed.join(', ')})` };
  }
  return { bash: { kind: 'wsl', path: wsl, ...(distribution ? { distribution } : {}), source: 'WSL' } };
}

/** Whether a bash.exe is WSL's launcher (`%SystemRoot%\System32\bash.exe`, the WindowsApps alias). */
function isWslLauncher(file: string, ports: WindowsShellPorts): boolean {
  const systemRoot = variableOf(ports.env, 'SystemRoot') ?? variableOf(ports.env, 'windir') ?? 'C:\\Windows';
  const lowered = win.normalize(file).toLowerCase();
  return (
    lowered.startsWith(`${win.normalize(systemRoot).toLowerCase()}\\`) || /\\microsoft\\windowsapps\\/.test(lowered)
  );
}

function variableOf(env: WindowsShellPorts['env'], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(env)) if (key.toLowerCase() === wanted && value) return value;
  return undefined;
}

/**
 * A Windows path as the chosen bash names it: Git Bash `/c/Users/me`, WSL `/mnt/c/Users/me`
 * (WSL's default mount root; `\\wsl$\<distro>\home\me` is `/home/me` there). Git Bash reads UNC
 * shares as `//server/share/…`; WSL cannot reach them: an error says so.
 */
export function toShellPath(windowsPath: string, kind: WindowsBash['kind']): string {
  const normalized = win.normalize(windowsPath);
  const drive = /^([a-zA-Z]):\\(.*)$/s.exec(normalized);
  if (drive) {
    const rest = drive[2]!.replace(/\\+$/, '').split('\\').filter(Boolean).join('/');
    const root = `${kind === 'wsl' ? '/mnt/' : '/'}${drive[1]!.toLowerCase()}`;
    return rest ? `${root}/${rest}` : root;
  }
  const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\(.*))?$/s.exec(normalized);
  if (unc && unc[1] !== '?' && unc[1] !== '.') {
    const rest = (unc[3] ?? '').split('\\').filter(Boolean).join('/');
    if (kind === 'wsl') {
      if (/^wsl(\$|\.localhost)$/i.test(unc[1]!)) return `/${rest}`;
      throw new Error(
        `WSL cannot reach the network folder ${windowsPath}; open the workspace from a drive or inside WSL.`,
      );
    }
    return `//${unc[1]}/${unc[2]}${rest ? `/${rest}` : ''}`;
  }
  throw new Error(`${windowsPath} is not a full Windows path (C:\\… or \\\\server\\share\\…).`);
}

/** How to run one command: `bash.exe -c` (Git Bash), `wsl.exe [-d <distro>] --cd <dir> -e bash -lc` (WSL). */
export function commandLaunch(
  bash: WindowsBash,
  command: string,
  cwd: string | undefined,
): { file: string; args: string[]; env: Record<string, string> } {
  if (bash.kind === 'wsl') {
    const distribution = bash.distribution ? ['-d', bash.distribution] : [];
    const folder = cwd ? ['--cd', toShellPath(cwd, 'wsl')] : [];
    return { file: bash.path, args: [...distribution, ...folder, '-e', 'bash', '-lc', command], env: {} };
  }
  // Git Bash: a login shell, so that /usr/bin is on PATH whichever bash.exe this is;
  // CHERE_INVOKING keeps its profile from changing to the home folder.
  return { file: bash.path, args: ['--login', '-c', command], env: { CHERE_INVOKING: '1' } };
}

/** The OpenAgent terminal's shell, so that the line typed into it is read as bash. */
export function terminalShell(bash: WindowsBash): {
  shellPath: string;
  shellArgs: string[];
  env: Record<string, string>;
} {
  if (bash.kind === 'wsl')
    return { shellPath: bash.path, shellArgs: bash.distribution ? ['-d', bash.distribution] : [], env: {} };
  return { shellPath: bash.path, shellArgs: ['--login', '-i'], env: { CHERE_INVOKING: '1' } };
}

/** The machine's own ports: its environment, its files, and `wsl.exe --list --quiet` (asked once, briefly). */
export function machinePorts(env: NodeJS.ProcessEnv = process.env): WindowsShellPorts {
  let distributions: readonly string[] | undefined | null = null;
  return {
    env,
    exists: (file) => existsSync(file),
    wslDistributions: () => {
      if (distributions !== null) return distributions;
      const systemRoot = variableOf(env, 'SystemRoot') ?? 'C:\\Windows';
      const listed = spawnSync(win.join(systemRoot, 'System32', 'wsl.exe'), ['--list', '--quiet'], {
        timeout: 5_000,
        windowsHide: true,
      });
      distributions = listed.status === 0 ? parseWslList(listed.stdout) : undefined;
      return distributions;
    },
  };
}

/** `wsl.exe --list --quiet` writes UTF-16LE (UTF-8 with WSL_UTF8=1): one distribution a line. */
export function parseWslList(output: Buffer): string[] {
  const text = output.includes(0) ? output.toString('utf16le') : output.toString('utf8');
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => line.replace(/\0/g, '').trim())
    .filter(Boolean);
}
