/**
 * Finding bash on Windows, with an injected environment and file-existence port (no Windows
 * machine here), the path translation for Git Bash and WSL, and how commands start there.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { OsSandbox } from '../../../../src/node/sandbox/os-sandbox';
import { windowsLine, windowsScript } from '../../../../src/node/windows/windows-commands';
import {
  commandLaunch,
  findWindowsBash,
  parseWslList,
  terminalShell,
  toShellPath,
  type FoundBash,
  type WindowsShellPorts,
} from '../../../../src/node/windows/windows-shell';

const BASE_ENV = {
  SystemRoot: 'C:\\Windows',
  ProgramFiles: 'C:\\Program Files',
  'ProgramFiles(x86)': 'C:\\Program Files (x86)',
  LOCALAPPDATA: 'C:\\Users\\Me\\AppData\\Local',
  USERPROFILE: 'C:\\Users\\Me',
  PATH: 'C:\\Windows\\System32;C:\\Windows',
};

/** A machine holding exactly `files` (compared without case, as NTFS does). */
function machine(
  files: string[],
  env: Record<string, string> = BASE_ENV,
  distributions?: string[],
): WindowsShellPorts & { asked: string[] } {
  const held = new Set(files.map((file) => file.toLowerCase()));
  const asked: string[] = [];
  return {
    env,
    asked,
    exists: (file) => {
      asked.push(file);
      return held.has(file.toLowerCase());
    },
    ...(distributions ? { wslDistributions: () => distributions } : {}),
  };
}

function bashOf(found: FoundBash) {
  assert.ok('bash' in found, 'missing' in found ? found.missing : '');
  return found.bash;
}

describe('windows-shell: finding bash', () => {
  it("finds Git for Windows' bash in Program Files first", () => {
    const found = bashOf(
      findWindowsBash(undefined, machine(['C:\\Program Files\\Git\\bin\\bash.exe', 'C:\\Windows\\System32\\wsl.exe'])),
    );
    assert.deepEqual(found, {
      kind: 'git-bash',
      path: 'C:\\Program Files\\Git\\bin\\bash.exe',
      source: 'Git for Windows',
    });
  });

  it('finds it under Program Files (x86), the per-user install and usr\\bin', () => {
    assert.equal(
      bashOf(findWindowsBash(undefined, machine(['C:\\Program Files (x86)\\Git\\bin\\bash.exe']))).path,
      'C:\\Program Files (x86)\\Git\\bin\\bash.exe',
    );
    assert.equal(
      bashOf(findWindowsBash(undefined, machine(['C:\\Users\\Me\\AppData\\Local\\Programs\\Git\\usr\\bin\\bash.exe'])))
        .path,
      'C:\\Users\\Me\\AppData\\Local\\Programs\\Git\\usr\\bin\\bash.exe',
    );
  });

  it('finds it next to the git.exe on PATH (cmd, bin and mingw64\\bin)', () => {
    for (const [folder, root] of [
      ['D:\\Tools\\Git\\cmd', 'D:\\Tools\\Git'],
      ['D:\\Tools\\Git\\bin\\', 'D:\\Tools\\Git'],
      ['"D:\\Tools\\Git\\mingw64\\bin"', 'D:\\Tools\\Git'],
    ] as const) {
      // Windows spells it Path; names are compared without case.
      const env: Record<string, string> = { ...BASE_ENV, PATH: '' };
      delete env.PATH;
      env.Path = `C:\\Windows\\System32;${folder}`;
      const plain = folder.replace(/"/g, '');
      const found = findWindowsBash(
        undefined,
        machine([path.win32.join(plain, 'git.exe'), `${root}\\bin\\bash.exe`], env),
      );
      assert.equal(bashOf(found).path, `${root}\\bin\\bash.exe`, folder);
    }
  });

  it("never takes System32's bash.exe (WSL's launcher) for Git Bash", () => {
    const env = { ...BASE_ENV, PATH: 'C:\\Windows\\System32' };
    const found = findWindowsBash(
      undefined,
      machine(['C:\\Windows\\System32\\bash.exe', 'C:\\Windows\\System32\\git.exe'], env),
    );
    assert.ok('missing' in found);
    assert.match(found.missing, /Install Git for Windows/);
  });

  it('falls back to WSL when it has a distribution, and says when it has none', () => {
    const wsl = 'C:\\Windows\\System32\\wsl.exe';
    assert.deepEqual(bashOf(findWindowsBash(undefined, machine([wsl], BASE_ENV, ['Ubuntu']))), {
      kind: 'wsl',
      path: wsl,
      source: 'WSL',
    });
    const empty = findWindowsBash(undefined, machine([wsl], BASE_ENV, []));
    assert.ok('missing' in empty);
    assert.match(empty.missing, /no Linux distribution/);
    assert.match(empty.missing, /openagent\.windowsShell/);
  });

  it('says what to install when there is nothing', () => {
    const found = findWindowsBash(undefined, machine([]));
    assert.ok('missing' in found);
    assert.match(found.missing, /Git for Windows/);
    assert.match(found.missing, /wsl --install/);
    assert.match(found.missing, /openagent\.windowsShell/);
    assert.match(found.missing, /Everything else .* works/);
  });

  it('takes the setting first: a path, git-bash, wsl, wsl:<distribution>', () => {
    const files = [
      'E:\\PortableGit\\bin\\bash.exe',
      'C:\\Program Files\\Git\\bin\\bash.exe',
      'C:\\Windows\\System32\\wsl.exe',
    ];
    const ports = machine(files, BASE_ENV, ['Ubuntu', 'Debian']);
    assert.deepEqual(bashOf(findWindowsBash('E:\\PortableGit\\bin\\bash.exe', ports)), {
      kind: 'git-bash',
      path: 'E:\\PortableGit\\bin\\bash.exe',
      source: 'openagent.windowsShell',
    });
    assert.equal(bashOf(findWindowsBash('git-bash', ports)).path, 'C:\\Program Files\\Git\\bin\\bash.exe');
    assert.equal(bashOf(findWindowsBash('WSL', ports)).kind, 'wsl', 'the setting wins over the Git Bash found');
    assert.equal(bashOf(findWindowsBash('wsl:Debian', ports)).distribution, 'Debian');
    const unknown = findWindowsBash('wsl:Arch', ports);
    assert.ok('missing' in unknown);
    assert.match(unknown.missing, /no distribution named "Arch" \(installed: Ubuntu, Debian\)/);
  });

  it('names System32\\bash.exe as WSL when the setting points at it', () => {
    const ports = machine(['C:\\Windows\\System32\\bash.exe', 'C:\\Windows\\System32\\wsl.exe'], BASE_ENV, ['Ubuntu']);
    const found = bashOf(findWindowsBash('c:\\windows\\system32\\BASH.EXE', ports));
    assert.equal(found.kind, 'wsl');
    assert.match(found.source, /WSL's launcher, used as WSL/);
  });

  it('refuses a setting that is missing, relative or not a path, without falling back', () => {
    const ports = machine(['C:\\Program Files\\Git\\bin\\bash.exe']);
    for (const [setting, reason] of [
      ['D:\\nowhere\\bash.exe', /does not exist/],
      ['bash.exe', /must be a full path/],
      ['\\Git\\bin\\bash.exe', /must be a full path/],
      ['powershell', /must be a full path/],
    ] as const) {
      const found = findWindowsBash(setting, ports);
      assert.ok('missing' in found, setting);
      assert.match(found.missing, reason);
    }
    assert.equal(bashOf(findWindowsBash('  ', ports)).source, 'Git for Windows', 'a blank setting is no setting');
  });

  it('reads wsl.exe --list in UTF-16LE and UTF-8', () => {
    assert.deepEqual(parseWslList(Buffer.from('\uFEFFUbuntu\r\nDebian\r\n\r\n', 'utf16le')), ['Ubuntu', 'Debian']);
    assert.deepEqual(parseWslList(Buffer.from('Ubuntu-22.04\n', 'utf8')), ['Ubuntu-22.04']);
  });
});

describe('windows-shell: the working folder as the shell names it', () => {
  it('translates drives for Git Bash and WSL', () => {
    assert.equal(toShellPath('C:\\Users\\Me\\My Repo', 'git-bash'), '/c/Users/Me/My Repo');
    assert.equal(toShellPath('C:\\Users\\Me\\My Repo', 'wsl'), '/mnt/c/Users/Me/My Repo');
    assert.equal(toShellPath('d:/work/', 'git-bash'), '/d/work');
    assert.equal(toShellPath('E:\\', 'wsl'), '/mnt/e');
    assert.equal(toShellPath('C:\\a\\..\\b\\.\\c', 'wsl'), '/mnt/c/b/c');
  });

  it('translates shares for Git Bash, WSL paths for WSL, and refuses the rest', () => {
    assert.equal(toShellPath('\\\\server\\share\\repo', 'git-bash'), '//server/share/repo');
    assert.equal(toShellPath('\\\\wsl$\\Ubuntu\\home\\me\\repo', 'wsl'), '/home/me/repo');
    assert.equal(toShellPath('\\\\wsl.localhost\\Ubuntu\\home\\me', 'wsl'), '/home/me');
    assert.throws(() => toShellPath('\\\\server\\share\\repo', 'wsl'), /WSL cannot reach the network folder/);
    assert.throws(() => toShellPath('repo\\src', 'git-bash'), /not a full Windows path/);
    assert.throws(() => toShellPath('\\\\?\\C:\\repo', 'git-bash'), /not a full Windows path/);
    assert.throws(() => toShellPath('/home/me', 'wsl'), /not a full Windows path/);
  });
});

describe('windows-shell: how commands start', () => {
  const git = { kind: 'git-bash', path: 'C:\\Program Files\\Git\\bin\\bash.exe', source: 'Git for Windows' } as const;
  const wsl = { kind: 'wsl', path: 'C:\\Windows\\System32\\wsl.exe', distribution: 'Debian', source: 'WSL' } as const;

  it('runs Git Bash as a login shell staying in the working folder', () => {
    assert.deepEqual(commandLaunch(git, 'ls -la', 'C:\\Repo'), {
      file: git.path,
      args: ['--login', '-c', 'ls -la'],
      env: { CHERE_INVOKING: '1' },
    });
    assert.deepEqual(terminalShell(git), {
      shellPath: git.path,
      shellArgs: ['--login', '-i'],
      env: { CHERE_INVOKING: '1' },
    });
  });

  it('runs WSL with its distribution, in the translated folder, through bash -lc', () => {
    assert.deepEqual(commandLaunch(wsl, 'make test', 'C:\\Users\\Me\\Repo').args, [
      '-d',
      'Debian',
      '--cd',
      '/mnt/c/Users/Me/Repo',
      '-e',
      'bash',
      '-lc',
      'make test',
    ]);
    assert.deepEqual(terminalShell(wsl).shellArgs, ['-d', 'Debian']);
  });

  it('writes the terminal line as bash: the command in a file, the folder translated', () => {
    const script = windowsScript(`echo 'it''s' && cd sub`, "C:\\Users\\Me\\O'Brien", 'git-bash');
    assert.equal(
      script,
      `cd -- '/c/Users/Me/O'\\''Brien' || exit 1\nprintf '%s\\n' '$ echo '\\''it'\\'''\\''s'\\'' && cd sub'\necho 'it''s' && cd sub\n`,
    );
    assert.equal(
      windowsLine('C:\\Users\\Me\\AppData\\Local\\Temp\\openagent-run-x\\command', 'wsl'),
      `"$BASH" '/mnt/c/Users/Me/AppData/Local/Temp/openagent-run-x/command' </dev/null`,
    );
  });
});

describe('windows-shell: the sandbox on Windows', () => {
  const settings = (windowsShell?: string) => ({
    mode: () => 'auto' as const,
    network: () => false,
    passEnv: () => [],
    root: () => undefined,
    ...(windowsShell !== undefined ? { windowsShell: () => windowsShell } : {}),
  });
  const env = { ...BASE_ENV, OPENAI_API_KEY: 'sk-secret-value-123456', PATH: 'C:\\Windows' };

  it('launches commands in the bash found, unconfined, with secrets removed', () => {
    const sandbox = new OsSandbox(settings(), {
      platform: 'win32',
      env,
      windowsPorts: machine(['C:\\Program Files\\Git\\bin\\bash.exe']),
    });
    assert.match(sandbox.status().detail, /not confined/);
    const launch = sandbox.launch('git status', { cwd: 'C:\\Repo' });
    assert.equal(launch.file, 'C:\\Program Files\\Git\\bin\\bash.exe');
    assert.deepEqual(launch.args, ['--login', '-c', 'git status']);
    assert.equal(launch.confined, false);
    assert.equal(launch.env.OPENAI_API_KEY, undefined);
    assert.equal(launch.env.CHERE_INVOKING, '1');
  });

  it('without bash, refuses with what to install; sandbox: required still refuses first', () => {
    const sandbox = new OsSandbox(settings(), { platform: 'win32', env, windowsPorts: machine([]) });
    assert.throws(() => sandbox.launch('ls', {}), /Install Git for Windows/);
    assert.throws(() => sandbox.terminalLine('ls', {}), /Install Git for Windows/);
    const windows = sandbox.windowsBash();
    assert.ok(windows && 'missing' in windows);
    const required = new OsSandbox(
      { ...settings(), mode: () => 'required' as const },
      { platform: 'win32', env, windowsPorts: machine(['C:\\Program Files\\Git\\bin\\bash.exe']) },
    );
    assert.throws(() => required.launch('ls', {}), /must run confined \(sandbox: required\)/);
  });

  it('follows the setting, then OPENAGENT_WINDOWS_SHELL (the CLI), and is silent elsewhere', () => {
    const ports = machine(['C:\\Program Files\\Git\\bin\\bash.exe', 'C:\\Windows\\System32\\wsl.exe'], BASE_ENV, [
      'Ubuntu',
    ]);
    let chosen = 'wsl';
    const sandbox = new OsSandbox(
      { ...settings(), windowsShell: () => chosen },
      { platform: 'win32', env, windowsPorts: ports },
    );
    assert.equal(sandbox.launch('ls', { cwd: 'C:\\Repo' }).file, 'C:\\Windows\\System32\\wsl.exe');
    chosen = '';
    assert.equal(
      sandbox.launch('ls', {}).file,
      'C:\\Program Files\\Git\\bin\\bash.exe',
      'a changed setting is read again',
    );
    const cli = new OsSandbox(settings(), {
      platform: 'win32',
      env: { ...env, OPENAGENT_WINDOWS_SHELL: 'wsl' },
      windowsPorts: ports,
    });
    assert.equal(cli.launch('ls', {}).file, 'C:\\Windows\\System32\\wsl.exe');
    assert.equal(new OsSandbox(settings('wsl'), { platform: 'linux', env }).windowsBash(), undefined);
  });
});
