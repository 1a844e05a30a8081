/**
 * What `npm start` (and the editor tests' code-server) needs from the machine beyond Node and
 * npm, checked before anything slow starts, so a newcomer reads one line saying what is missing
 * and the one command that installs it, instead of a native build error minutes later.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A system program something needs, and the package that brings it per package manager. */
interface Need {
  program: string;
  packages: { apt: string; dnf: string; brew: string | undefined };
  /** What stops working without it, said to the user. */
  why: string;
  /** Without it nothing can start (a native module code-server cannot run without). */
  required: boolean;
}

/**
 * argon2 (code-server loads it at start-up) and node-pty (every terminal) have no prebuilt
 * binary for Linux here: node-gyp builds them, which takes make, a C++ compiler and Python.
 */
const TOOLCHAIN: Need[] = [
  {
    program: 'make',
    packages: { apt: 'make', dnf: 'make', brew: undefined },
    why: "needed once, to build code-server's native modules",
    required: true,
  },
  {
    program: 'g++',
    packages: { apt: 'g++', dnf: 'gcc-c++', brew: undefined },
    why: "needed once, to build code-server's native modules",
    required: true,
  },
  {
    program: 'python3',
    packages: { apt: 'python3', dnf: 'python3', brew: 'python3' },
    why: "needed once, to build code-server's native modules",
    required: true,
  },
];

/** VS Code's search and quick open, and the agent's search_files tool, run ripgrep. */
const RIPGREP: Need = {
  program: 'rg',
  packages: { apt: 'ripgrep', dnf: 'ripgrep', brew: 'ripgrep' },
  why: "for search in the editor and the agent's search_files tool",
  required: false,
};

/** `program` as the shell would find it on PATH, or undefined. */
export function findOnPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface SystemReport {
  /** One line for the user, or undefined when nothing is missing. */
  line: string | undefined;
  /** Something required is missing: starting would only fail later, after a long build. */
  fatal: boolean;
}

export interface SystemCheckInput {
  /** The toolchain matters only for code-server's first install. */
  codeServerInstalled: boolean;
  /** Whether the editor's ripgrep link already resolves (an earlier install found rg). */
  ripgrepLinked: boolean;
  env?: NodeJS.ProcessEnv;
  /** For tests: whether we run as root (no sudo needed). */
  root?: boolean;
}

/** Checks what is missing and words it as a single line (see SystemReport). */
export function checkSystem(input: SystemCheckInput): SystemReport {
  const env = input.env ?? process.env;
  const needs = [...(input.codeServerInstalled ? [] : TOOLCHAIN), ...(input.ripgrepLinked ? [] : [RIPGREP])];
  const missing = needs.filter((need) => !findOnPath(need.program, env));
  if (missing.length === 0) return { line: undefined, fatal: false };
  const fatal = missing.some((need) => need.required);
  const what = groupByReason(missing);
  const command = installCommand(missing, env, input.root ?? process.getuid?.() === 0);
  const outcome = fatal ? 'then start again.' : `starting without ${missing.length === 1 ? 'it' : 'them'}.`;
  return { line: `Missing ${what} — install with: ${command}; ${outcome}`, fatal };
}

function groupByReason(missing: Need[]): string {
  const reasons = new Map<string, string[]>();
  for (const need of missing) reasons.set(need.why, [...(reasons.get(need.why) ?? []), need.program]);
  return [...reasons].map(([why, programs]) => `${programs.join(', ')} (${why})`).join(', ');
}

/** The one command that installs the missing programs with this machine's package manager. */
function installCommand(missing: Need[], env: NodeJS.ProcessEnv, root: boolean): string {
  const sudo = root ? '' : 'sudo ';
  const names = (manager: keyof Need['packages']) =>
    [...new Set(missing.map((need) => need.packages[manager]).filter((name) => name !== undefined))].join(' ');
  if (findOnPath('apt-get', env)) return `${sudo}apt-get install ${names('apt')}`;
  if (findOnPath('dnf', env)) return `${sudo}dnf install ${names('dnf')}`;
  if (findOnPath('brew', env)) {
    const brewNames = names('brew');
    const needsXcode = missing.some((need) => need.packages.brew === undefined);
    return [needsXcode ? 'xcode-select --install' : '', brewNames ? `brew install ${brewNames}` : '']
      .filter(Boolean)
      .join(' && ');
  }
  return `your package manager: ${missing.map((need) => need.program).join(', ')}`;
}
