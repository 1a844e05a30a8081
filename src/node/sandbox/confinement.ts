/**
 * What a confined command may touch, whatever confines it (bubblewrap on Linux, Seatbelt on
 * macOS): one list of protected paths inside the workspace and of secrets in the home folder.
 */
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** Inside the workspace: read-only for confined commands. */
export const PROTECTED_INSIDE = [
  '.git/hooks',
  '.git/config',
  '.openagent',
  '.vscode',
  '.github/workflows',
  '.husky',
  '.githooks',
  '.devcontainer',
];

/** Folders that, created by a confined command, are removed after it (all but the one file). */
export const PROTECTED_FOLDERS = PROTECTED_INSIDE.filter((inside) => inside !== '.git/config');

/** In the home folder: hidden from confined commands. */
export const HOME_SECRETS = [
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
}

export function kindOf(absolute: string): 'file' | 'folder' | undefined {
  try {
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) return lstatSync(realpathSync(absolute)).isDirectory() ? 'folder' : 'file';
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

/** The secrets to hide that exist, with their kind. */
export function existingSecrets(plan: ConfinementPlan): Array<{ path: string; kind: 'file' | 'folder' }> {
  return [...HOME_SECRETS.map((name) => path.join(plan.home, name)), ...plan.hidden].flatMap((secret) => {
    const kind = kindOf(secret);
    return kind ? [{ path: secret, kind }] : [];
  });
}

/** The protected paths inside the workspace that exist, as real paths inside it. */
export function existingProtected(root: string): string[] {
  let envFiles: string[] = [];
  try {
    envFiles = readdirSync(root).filter((name) => /^\.env/i.test(name));
  } catch {
    // No root to read.
  }
  return [...PROTECTED_INSIDE, ...envFiles].flatMap((inside) => {
    const absolute = path.join(root, inside);
    if (kindOf(absolute) === undefined) return [];
    const real = realpathSync(absolute);
    // A link that leads out of the workspace is read-only anyway.
    return real === root || real.startsWith(`${root}${path.sep}`) ? [real] : [];
  });
}
