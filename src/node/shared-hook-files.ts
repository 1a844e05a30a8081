/**
 * Where shared-format hooks come from, on disk, and which of a repository's the user allowed:
 * - the workspace's `.claude/settings.json`, `.claude/settings.local.json` and
 *   `.github/hooks/*.json` (at most MAX_GITHUB_HOOK_FILES, by name): each read only if it is a
 *   regular file whose real path is inside the workspace (a link out of it, a pipe, a device,
 *   a file over 1 MB is reported, not read);
 * - the user's own `~/.claude/settings.json`, unless turned off (scope `user`: no allow needed);
 * - the allowed hooks: a JSON file of fingerprints (workspace + file + event + matcher +
 *   command, then folder + env, timeout, and the content of the workspace files the command
 *   runs: referenced-files.ts), so a changed hook — or a changed script — asks again.
 */
import { readdirSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HOOK_FINGERPRINT_PARTS } from '../core/hooks/hook-permits';
import { MAX_HOOK_FILE_BYTES, parseHookFile, type SharedHook } from '../core/hooks/shared-hook-config';
import { composeFingerprint, fingerprintIdentity } from '../core/workspace/allow-fingerprint';
import { isInside } from '../core/workspace/workspace-path';
import { readRegularFile, UnusableFileError } from '../store/regular-file';
import { LockedJsonFiles } from './locked-json-file';
import { ReferencedFiles } from './referenced-files';

const MAX_GITHUB_HOOK_FILES = 50;
/** Allows kept, newest last: each edit of a hook's command adds one; the oldest go (they ask again). */
export const MAX_ALLOWED_HOOKS = 1_000;

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

/** The file hashes of every hook fingerprint in this process (cached by inode and times). */
const defaultReferencedFiles = new ReferencedFiles();

/**
 * The fingerprint of one hook in one workspace: what an allow is kept under. Its identity is the
 * workspace, file, event, matcher and command; its parts (HOOK_FINGERPRINT_PARTS) its folder and
 * environment, its timeout, and the workspace files its command names (`bash
 * .claude/hooks/check.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py`), by content — read
 * from the folder the hook runs in, `$CLAUDE_PROJECT_DIR` being the root, as when it runs.
 */
export async function hookFingerprint(
  root: string,
  hook: SharedHook,
  files: ReferencedFiles = defaultReferencedFiles,
): Promise<string> {
  // As the hook runner does: a folder climbing out of the workspace runs at the root.
  const folder = hook.cwd ? path.resolve(root, hook.cwd) : root;
  const referenced = await files.examine({
    root,
    cwd: isInside(root, folder) ? folder : root,
    lines: [hook.command],
    environment: hook.env ?? {},
    variables: { CLAUDE_PROJECT_DIR: root },
  });
  const [environment, timeout, runs] = HOOK_FINGERPRINT_PARTS;
  return composeFingerprint(
    [root, hook.source, hook.event, hook.matcher, hook.command],
    [
      { label: environment, value: [hook.cwd ?? '', hook.env ?? {}] },
      { label: timeout, value: hook.timeoutSeconds ?? null },
      { label: runs, value: referenced.entries },
    ],
  );
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

  async allowedFingerprints(): Promise<string[]> {
    return (await this.files.read(this.file)).allowed;
  }

  /**
   * Keeps the allow. An earlier allow of the same hook that differs only by the files it runs
   * is replaced (an edited script would otherwise add an entry at every edit); one differing in
   * its folder, environment or timeout is another hook and stays.
   */
  async allow(fingerprint: string): Promise<void> {
    const sameButFiles = (other: string) =>
      fingerprintIdentity(other) === fingerprintIdentity(fingerprint) &&
      other.split(':').slice(0, -1).join(':') === fingerprint.split(':').slice(0, -1).join(':');
    await this.files.update(this.file, (document) => ({
      document: document.allowed.includes(fingerprint)
        ? document
        : {
            allowed: [...document.allowed.filter((other) => !sameButFiles(other)), fingerprint].slice(
              -MAX_ALLOWED_HOOKS,
            ),
          },
      result: undefined,
    }));
  }
}
