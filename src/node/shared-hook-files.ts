/**
 * Where shared-format hooks come from, on disk, and which of a repository's the user allowed:
 * - the workspace's `.claude/settings.json`, `.claude/settings.local.json` and
 *   `.github/hooks/*.json` (at most MAX_GITHUB_HOOK_FILES, by name): each read only if it is a
 *   regular file whose real path is inside the workspace (a link out of it, a pipe, a device,
 *   a file over 1 MB is reported, not read);
 * - the user's own `~/.claude/settings.json`, unless turned off (scope `user`: no allow needed);
 * - the allowed hooks: a JSON file of fingerprints (workspace + file + event + matcher +
 *   command + folder + env), so a changed hook is a new one and asks again.
 */
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hookIdentity, MAX_HOOK_FILE_BYTES, parseHookFile, type SharedHook } from '../core/hooks/shared-hook-config';
import { readRegularFile, UnusableFileError } from '../store/regular-file';
import { LockedJsonFiles } from './locked-json-file';

const MAX_GITHUB_HOOK_FILES = 50;

export interface SharedHookFileOptions {
  root(): string | undefined;
  /** Read `~/.claude/settings.json` too (default true). */
  userHooks?: () => boolean;
  home?: string;
  platform?: NodeJS.Platform;
}

export class SharedHookFiles {
  constructor(private readonly options: SharedHookFileOptions) {}

  async load(): Promise<{ hooks: SharedHook[]; problems: string[] }> {
    const hooks: SharedHook[] = [];
    const problems: string[] = [];
    const platform = this.options.platform ?? process.platform;
    const read = async (absolute: string, shown: string, scope: SharedHook['scope'], within?: string) => {
      const text = await readHookFile(absolute, shown, within, problems);
      if (text === undefined) return;
      const parsed = parseHookFile(shown, text, scope, platform);
      hooks.push(...parsed.hooks);
      problems.push(...parsed.problems);
    };
    if (this.options.userHooks?.() ?? true) {
      const home = this.options.home ?? os.homedir();
      await read(path.join(home, '.claude', 'settings.json'), '~/.claude/settings.json', 'user');
    }
    const root = realOrUndefined(this.options.root());
    if (root !== undefined) {
      for (const name of ['.claude/settings.json', '.claude/settings.local.json'])
        await read(path.join(root, name), name, 'workspace', root);
      const folder = path.join(root, '.github', 'hooks');
      let names: string[] = [];
      try {
        names = readdirSync(folder)
          .filter((name) => name.endsWith('.json'))
          .sort();
      } catch {
        // No folder: no hooks there.
      }
      if (names.length > MAX_GITHUB_HOOK_FILES)
        problems.push(
          `.github/hooks holds more than ${MAX_GITHUB_HOOK_FILES} files: only the first ${MAX_GITHUB_HOOK_FILES} are read.`,
        );
      for (const name of names.slice(0, MAX_GITHUB_HOOK_FILES))
        await read(path.join(folder, name), `.github/hooks/${name}`, 'workspace', root);
    }
    return { hooks, problems };
  }
}

async function readHookFile(
  absolute: string,
  shown: string,
  within: string | undefined,
  problems: string[],
): Promise<string | undefined> {
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return undefined;
  }
  if (within !== undefined && !real.startsWith(`${within}${path.sep}`)) {
    problems.push(`${shown} leads outside the workspace (${real}); its hooks do not run.`);
    return undefined;
  }
  try {
    return (await readRegularFile(real, MAX_HOOK_FILE_BYTES)).toString('utf8');
  } catch (error) {
    if (error instanceof UnusableFileError) problems.push(`${shown} ${error.reason}; its hooks do not run.`);
    else if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push(`${shown} could not be read (${(error as Error).message}); its hooks do not run.`);
    return undefined;
  }
}

function realOrUndefined(root: string | undefined): string | undefined {
  if (root === undefined) return undefined;
  try {
    return realpathSync(root);
  } catch {
    return undefined;
  }
}

interface AllowedDocument {
  allowed: string[];
}

/** The fingerprint of one hook in one workspace: what an allow is kept under. */
export function hookFingerprint(root: string, hook: SharedHook): string {
  return createHash('sha256')
    .update(JSON.stringify([root, hookIdentity(hook)]))
    .digest('hex');
}

/** The repository hooks the user allowed, in a JSON file (`allowed-hooks.json` in the app's storage). */
export class AllowedHooksFile {
  private readonly files = new LockedJsonFiles<AllowedDocument>(
    () => ({ allowed: [] }),
    (data) => {
      const allowed = (data as Partial<AllowedDocument>)?.allowed;
      if (!Array.isArray(allowed) || !allowed.every((entry) => typeof entry === 'string'))
        throw new Error('not a list of allowed hooks');
      return { allowed };
    },
  );

  constructor(private readonly file: string) {}

  async isAllowed(fingerprint: string): Promise<boolean> {
    return (await this.files.read(this.file)).allowed.includes(fingerprint);
  }

  async allow(fingerprint: string): Promise<void> {
    await this.files.update(this.file, (document) => ({
      document: document.allowed.includes(fingerprint) ? document : { allowed: [...document.allowed, fingerprint] },
      result: undefined,
    }));
  }
}
