/**
 * What a confined command may touch, whatever confines it (bubblewrap on Linux, Seatbelt on
 * macOS), decided once here:
 * - inside the workspace, whole top-level entries are read-only: `.git` (hooks, config,
 *   commondir, submodules — git reads too many control files to protect them one by one, so
 *   git commands that write the repository ask and run outside), `.github`, `.openagent`,
 *   `.vscode`, `.husky`, `.githooks`, `.devcontainer`, and `.env*` files. Being top-level
 *   mount points, they cannot be renamed away either. Missing ones get an empty read-only
 *   placeholder for the run (removed after it), so they cannot be created meanwhile;
 * - the home folder is hidden whole (an empty, throw-away one in its place) except the tools
 *   commands need, bound back read-only — with the secrets inside those hidden again.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** Top-level entries of the workspace that confined commands may not change. */
export const PROTECTED_TOP = ['.git', '.github', '.openagent', '.vscode', '.husky', '.githooks', '.devcontainer'];

/** Where the tools commands need live in a home folder: bound back read-only. */
export const HOME_TOOLS = [
  '.nvm',
  '.volta',
  '.fnm',
  '.bun',
  '.deno',
  '.cargo',
  '.rustup',
  '.pyenv',
  '.rbenv',
  '.goenv',
  '.sdkman',
  '.asdf',
  'go',
  '.node-gyp',
];

/** Secrets in the home folder, hidden even where a tools folder holding them is bound back. */
export const HOME_SECRETS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/git/credentials',
  '.config/github-copilot',
  '.config/rclone',
  '.config/composer/auth.json',
  '.config/pip/pip.conf',
  '.azure',
  '.kube',
  '.docker',
  '.openagent',
  '.claude',
  '.codex',
  '.password-store',
  '.local/share/keyrings',
  '.local/share/fish/fish_history',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.gitconfig',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.terraform.d',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.kaggle',
  '.gem/credentials',
  '.pulumi',
  '.s3cfg',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.cache/huggingface',
  '.npm/_authToken',
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.config/openagent',
];

/** One confined run: where, with what, allowed what. */
export interface ConfinementPlan {
  /** The workspace's real path (writable), if there is one. */
  root: string | undefined;
  cwd: string;
  env: Record<string, string>;
  network: boolean;
  home: string;
  /** More paths to hide (the editor's storage of conversations). */
  hidden: readonly string[];
  /** An empty folder to put in place of a missing protected one. */
  placeholder?: string;
  /** An empty file to cover a secret file with. */
  emptyFile?: string;
  /** The PATH the command gets: its folders inside the home folder are bound back. */
  pathDirectories?: readonly string[];
  /** The workspace's protected entries as they are before the run (protectedEntries). */
  entries?: ReturnType<typeof protectedEntries>;
}

export type EntryKind = 'file' | 'folder' | 'link';

export function kindOf(absolute: string): 'file' | 'folder' | undefined {
  try {
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) return lstatSync(realpathSync(absolute)).isDirectory() ? 'folder' : 'file';
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

/** What a top-level entry is right now, without following a link: to notice it changed. */
export function entryState(absolute: string): string {
  try {
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) return `link:${readlinkSync(absolute)}`;
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

/** The secrets to hide that exist, with their kind (npm's global config in each nvm install too). */
export function existingSecrets(plan: ConfinementPlan): Array<{ path: string; kind: 'file' | 'folder' }> {
  const nvm = path.join(plan.home, '.nvm/versions/node');
  let versions: string[] = [];
  try {
    versions = readdirSync(nvm).map((version) => path.join(nvm, version, 'etc/npmrc'));
  } catch {
    // No nvm.
  }
  return [...HOME_SECRETS.map((name) => path.join(plan.home, name)), ...versions, ...plan.hidden].flatMap((secret) => {
    const kind = kindOf(secret);
    return kind ? [{ path: secret, kind }] : [];
  });
}

/** Tools folders of the home to bind back: the fixed list and where the PATH's folders under home live. */
export function homeTools(plan: ConfinementPlan): string[] {
  // The PATH's folders themselves (and a `bin`'s sibling `lib`, where its programs' code
  // lives), never a whole `~/.local` or `~/.cache`, which hold tokens and histories.
  const fromPath = (plan.pathDirectories ?? [])
    .filter((directory) => directory.startsWith(`${plan.home}${path.sep}`))
    .flatMap((directory) =>
      path.basename(directory) === 'bin' ? [directory, path.join(path.dirname(directory), 'lib')] : [directory],
    );
  const tools = [...HOME_TOOLS.map((name) => path.join(plan.home, name)), ...fromPath];
  return [...new Set(tools)].filter((tool) => kindOf(tool) !== undefined && !isSecret(plan, tool));
}

function isSecret(plan: ConfinementPlan, candidate: string): boolean {
  return HOME_SECRETS.some((name) => {
    const secret = path.join(plan.home, name);
    return candidate === secret || candidate.startsWith(`${secret}${path.sep}`);
  });
}

/** The workspace's protected entries: each top-level name with its real path and state. */
export function protectedEntries(root: string): Array<{ name: string; absolute: string; state: string }> {
  let envFiles: string[] = [];
  try {
    envFiles = readdirSync(root).filter((name) => /^\.env/i.test(name));
  } catch {
    // No root to read.
  }
  return [...PROTECTED_TOP, ...envFiles].map((name) => {
    const absolute = path.join(root, name);
    return { name, absolute, state: entryState(absolute) };
  });
}

/** Whether `root` is the home folder or holds it: then the home's secrets cannot be hidden. */
export function holdsHome(root: string, home: string): boolean {
  const relative = path.relative(root, home);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * More folders a confined command may not change, for the protected entries as they are: the
 * git folder a `.git` file names (worktrees, `--separate-git-dir`), and for an entry that is a
 * link, its target and every folder between the workspace and it (renaming one would swap it).
 */
export function protectedTargets(root: string, entries = protectedEntries(root)): string[] {
  const targets: string[] = [];
  for (const entry of entries) {
    if (entry.name === '.git' && entry.state === 'file') {
      try {
        const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(entry.absolute, 'utf8'))?.[1]?.trim();
        if (gitdir) targets.push(realpathSync(path.resolve(root, gitdir)));
      } catch {
        // Unreadable or dangling: git will fail on it too.
      }
    }
    if (!entry.state.startsWith('link:')) continue;
    let target: string;
    try {
      target = realpathSync(entry.absolute);
    } catch {
      continue;
    }
    for (let folder = target; folder !== root && folder.startsWith(`${root}${path.sep}`); folder = path.dirname(folder))
      targets.push(folder);
  }
  return targets.filter((target) => target !== root && target.startsWith(`${root}${path.sep}`));
}
