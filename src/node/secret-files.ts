/**
 * The secret files of a workspace (`.env*`, keys, credential files), ignored ones included: a
 * recursive search, a folder holding one or a pattern that would reach one asks (call-risk.ts).
 * A bounded walk — so many folders deep, so many entries, dependency and VCS folders skipped,
 * links followed (once each) — remembered for a few seconds: a command line is assessed once
 * per tool call.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { isSecretPath } from '../core/policy/protected-paths';

const MAX_DEPTH = 8;
const MAX_ENTRIES = 50_000;
const FRESH_MS = 5_000;
const SKIPPED = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'build',
  'out',
  'target',
  '.venv',
  'venv',
  '__pycache__',
]);

export class SecretFiles {
  private readonly cache = new Map<string, { at: number; files: Promise<string[]> }>();

  constructor(private readonly now: () => number = Date.now) {}

  readonly find = (root: string): Promise<string[]> => {
    const cached = this.cache.get(root);
    if (cached && this.now() - cached.at < FRESH_MS) return cached.files;
    const files = walk(root);
    this.cache.set(root, { at: this.now(), files });
    return files;
  };
}

async function walk(root: string): Promise<string[]> {
  const found: string[] = [];
  let seen = 0;
  const realRoot = await realpath(root).catch(() => root);
  const visited = new Set<string>([realRoot]);
  let folders: string[] = [''];
  for (let depth = 0; depth <= MAX_DEPTH && folders.length > 0 && seen < MAX_ENTRIES; depth++) {
    const next: string[] = [];
    for (const folder of folders) {
      const entries = await readdir(path.join(root, folder), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (++seen > MAX_ENTRIES) break;
        const relative = folder ? `${folder}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!SKIPPED.has(entry.name)) next.push(relative);
        } else if (entry.isSymbolicLink()) {
          // A link leads where its target is: a secret file (by its real name), or a folder to walk.
          const target = await realpath(path.join(root, relative)).catch(() => undefined);
          if (target === undefined) continue;
          const info = await stat(target).catch(() => undefined);
          if (info?.isDirectory()) {
            // Only folders inside the workspace: a link out (`up -> ..`) is the command's to ask about.
            const inside = target === realRoot || target.startsWith(`${realRoot}${path.sep}`);
            if (inside && !visited.has(target)) {
              visited.add(target);
              next.push(relative);
            }
          } else if (
            isSecretPath(relative) ||
            isSecretPath(path.relative(realRoot, target)) ||
            isSecretPath(path.basename(target))
          )
            found.push(relative);
        } else if (isSecretPath(relative)) found.push(relative);
      }
    }
    folders = next;
  }
  return found;
}
