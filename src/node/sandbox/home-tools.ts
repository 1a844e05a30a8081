/**
 * The home folder inside the sandbox (issue 32): hidden whole, with the tool folders commands
 * need bound back read-only — decided on real paths, and with the credential files inside them
 * hidden by what they are, whichever tool put them there:
 * - a tool folder is a known one (HOME_TOOLS) or a PATH folder, AFTER resolving it (links,
 *   `..`, `./`, a trailing slash): one that is the home itself, holds it, holds a known secret
 *   folder (`~/.local` holds keyrings) or lies inside one is never bound back;
 * - each bound folder is walked (bounded: TOOL_SCAN_LIMITS) for credential files and folders by
 *   name — npm rc files (`etc/npmrc` of any Node install), cargo/gem credentials, gh's
 *   `hosts.yml`, pip.conf, .pypirc, gradle.properties, Maven settings, Docker's config, keys —
 *   and each is covered (an empty file, an empty folder).
 */
import { lstatSync, opendirSync, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { isSecretPath } from '../../core/policy/protected-paths';
import { isInside } from '../../core/workspace/workspace-path';
import { kindOf, type ConfinementPlan } from './confinement';
import { isLink, realOrUndefined, realOr } from './quiet-fs';

/** Where the tools commands need live in a home folder: bound back read-only (existing ones). */
export const HOME_TOOLS = [
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.local/share/mise',
  '.nodenv',
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

/** The scan of bound tool folders: beyond these caps, what was not seen is not hidden (README). */
export const TOOL_SCAN_LIMITS = { depth: 8, entries: 20_000 };

/**
 * Bulk content of tool folders — installed packages, libraries, sources, headers, docs, whole
 * toolchains — not scanned: credentials live in a tool's own top folders and `etc` (npm's
 * global rc is `<prefix>/etc/npmrc`), not among the files it installed.
 */
const UNSCANNED = new Set([
  'node_modules',
  '.git',
  'include',
  'lib',
  'lib64',
  'share',
  'man',
  'doc',
  'src',
  'test',
  'tests',
  'site-packages',
  'registry',
  'mod',
  'toolchains',
]);

/** Credential files by name (lower case), beyond what isSecretPath knows. */
const CREDENTIAL_FILES = new Set([
  'npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  'credentials',
  'credentials.toml',
  'credentials.json',
  'credentials.db',
  'access_tokens.db',
  'application_default_credentials.json',
  'hosts.yml',
  'hosts.yaml',
  'rclone.conf',
  '.condarc',
  'pip.conf',
  'pip.ini',
  'gradle.properties',
  'settings.xml',
  'settings-security.xml',
  'auth.json',
  '.git-credentials',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.boto',
  '.s3cfg',
  '.dockercfg',
  '.terraformrc',
  'terraform.rc',
  '.gitconfig',
  '_netrc',
]);

/** Credential folders by name: covered whole. */
const CREDENTIAL_FOLDERS = new Set(['.ssh', '.aws', '.gnupg', '.docker', '.kube', '.password-store', 'keyrings']);

/**
 * Words that make a data file's name a credential's (`token.txt`, `github_token`, `.credentials.json`,
 * `service-account.json`, `rclone.conf` is not one but `password.txt` is): tools keep tokens in
 * files named for what they hold, and a word list of whole names never keeps up.
 */
const CREDENTIAL_WORD =
  /^(?:tokens?|secrets?|passwords?|passwd|passphrase|credentials?|creds|apikeys?|authinfo|authtoken|netrc|cookies?|kubeconfig|keyfile|keystore|oauth2?|auth|serviceaccount|privatekey)$/;
/** Programs and code are never covered (a tool whose program is named `…-credential-…` must still run). */
const DATA_FILE =
  /^(?:[^.]*|.*\.(?:txt|json|ya?ml|toml|ini|conf|cfg|db|sqlite3?|xml|properties|dat|env|key|b64|jwt|rc))$/;
/** Folders of programs: their files are tools, whatever they are named. */
const PROGRAM_FOLDERS = new Set(['bin', 'sbin', 'libexec', 'shims']);

/** Whether a file (its path relative to a tool folder) holds credentials, by what it is. */
export function isCredentialFile(relative: string): boolean {
  const parts = relative.toLowerCase().split('/');
  const name = parts.at(-1)!;
  const parent = parts.at(-2);
  return (
    CREDENTIAL_FILES.has(name) ||
    isSecretPath(name) ||
    /\.(token|tokens)$/.test(name) ||
    (name === 'config.json' && parent === '.docker') ||
    (name === 'config' && parent === '.bundle') ||
    (DATA_FILE.test(name.replace(/^\.+/, '')) &&
      !PROGRAM_FOLDERS.has(parent ?? '') &&
      namesCredential(relative.split('/').at(-1)!))
  );
}

/** Whether a file name's words (`api_key`, `GitHubToken`, `sa-private-key`) name a credential. */
function namesCredential(name: string): boolean {
  const stem = name.replace(/^\.+/, '').replace(/\.[^.]*$/, '');
  const words = stem
    .split(/[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
  return words.some(
    (word, at) =>
      CREDENTIAL_WORD.test(word) ||
      // Two words that are one: `api key`, `access token`, `service account`, `private key`.
      CREDENTIAL_WORD.test(`${words[at - 1] ?? ''}${word}`) ||
      (word === 'key' && at > 0 && at === words.length - 1),
  );
}

/** Tool folders to bind back: where each is, and where the command looks for it (if elsewhere in the home). */
export interface HomeTool {
  real: string;
  /** The path the command uses, when it differs from the real one (a link or `..` in the PATH). */
  alias?: string;
}

/** The home's tool folders to bind back: known ones and the PATH's, resolved, never the home or secrets. */
export function homeTools(plan: ConfinementPlan): HomeTool[] {
  const homes = [...new Set([plan.home, realOr(plan.home)])];
  const underHome = (candidate: string) => homes.some((home) => candidate !== home && isInside(home, candidate));
  // A tool folder may hold a known secret file below the home's top (`.cargo/credentials.toml`):
  // it is covered. It may not hold the home's own secret files or any secret folder.
  const secrets = [
    ...homes.flatMap((home) =>
      HOME_SECRETS.map((name) => ({ name, absolute: path.join(home, name) })).filter(
        ({ name, absolute }) => !name.includes('/') || kindOf(absolute) === 'folder',
      ),
    ),
    ...plan.hidden.flatMap((hidden) => [
      { name: hidden, absolute: hidden },
      { name: hidden, absolute: realOr(hidden) },
    ]),
  ].map(({ absolute }) => absolute);
  const candidates = [
    ...HOME_TOOLS.map((name) => path.join(plan.home, name)),
    // The PATH's folders (normalized: `~/./bin/`, `~/x/..`), and a `bin`'s sibling `lib`.
    ...(plan.pathDirectories ?? [])
      .filter((directory) => path.isAbsolute(directory))
      .map((directory) => path.resolve(directory)),
  ];
  const tools = new Map<string, HomeTool>();
  const keep = (alias: string, real: string) => {
    if (!underHome(real)) return;
    // Never the home itself or what holds it (underHome), a secret or what holds one.
    if (secrets.some((secret) => isInside(secret, real) || isInside(real, secret))) return;
    if (HOME_SECRETS.some((name) => homes.some((home) => isInside(path.join(home, name), real)))) return;
    const tool = tools.get(`${real}\0${alias}`) ?? { real, ...(alias !== real && underHome(alias) ? { alias } : {}) };
    tools.set(`${real}\0${alias}`, tool);
  };
  for (const candidate of candidates) {
    const real = realOrUndefined(candidate);
    if (!real) continue;
    keep(candidate, real);
    if (path.basename(real) === 'bin') {
      // The tool's own `lib`, not what a `lib` link elsewhere in the home points to (`lib -> ~/notes`).
      const prefix = path.dirname(real);
      const lib = realOrUndefined(path.join(prefix, 'lib'));
      if (lib && isInside(prefix, lib) && lib !== prefix) keep(lib, lib);
    }
  }
  return [...tools.values()];
}

/**
 * Credentials npm reads from inside installed bulk: the npm package's own (builtin) rc file, in
 * `lib/node_modules/npm/` of every Node install. Checked by path where the walk does not go.
 */
const BULK_CREDENTIALS: Record<string, readonly string[]> = {
  lib: ['node_modules/npm/npmrc', 'node_modules/npm/.npmrc'],
  node_modules: ['npm/npmrc', 'npm/.npmrc'],
};

/**
 * Credential files and folders inside the bound tool folders, found by a bounded walk: by name,
 * and files that are another name (a hard link) of one of the home's secret files. The walk
 * reads folders entry by entry, so a folder of a million files costs the cap, not a million.
 */
export function toolCredentials(
  tools: readonly HomeTool[],
  secretFiles: ReadonlySet<string> = new Set(),
): Array<{ path: string; kind: 'file' | 'folder' }> {
  const found: Array<{ path: string; kind: 'file' | 'folder' }> = [];
  const reals = [...new Set(tools.map((tool) => tool.real))];
  const roots = reals.filter((real) => !reals.some((other) => other !== real && isInside(other, real)));
  // Each tool folder is walked breadth first with its share of what is left, in rounds: one
  // huge folder (a PATH entry of 100,000 programs) cannot use up the others' share, and what a
  // small one leaves goes to the rest in the next round.
  const walks = roots.map((root) => ({ root, queue: [{ folder: root, depth: 0 }] }));
  let left = TOOL_SCAN_LIMITS.entries;
  for (let active = walks; active.length > 0 && left > 0; active = active.filter((walk) => walk.queue.length > 0)) {
    const share = Math.max(1, Math.floor(left / active.length));
    for (const walk of active) {
      let budget = Math.min(share, left);
      while (budget > 0 && walk.queue.length > 0) {
        const { folder, depth } = walk.queue.shift()!;
        const entries = read(folder, budget);
        budget -= entries.length;
        left -= entries.length;
        for (const entry of entries) {
          const absolute = path.join(folder, entry.name);
          const name = entry.name.toLowerCase();
          if (entry.isDirectory()) {
            if (CREDENTIAL_FOLDERS.has(name)) found.push({ path: absolute, kind: 'folder' });
            else if (!UNSCANNED.has(name) && depth < TOOL_SCAN_LIMITS.depth)
              walk.queue.push({ folder: absolute, depth: depth + 1 });
            for (const inside of BULK_CREDENTIALS[name] ?? []) {
              const candidate = path.join(absolute, inside);
              if (kindOf(candidate) === 'file' && !isLink(candidate)) found.push({ path: candidate, kind: 'file' });
            }
          } else if (entry.isFile()) {
            if (isCredentialFile(path.relative(walk.root, absolute)) || isSecretFileLink(absolute, secretFiles))
              found.push({ path: absolute, kind: 'file' });
          }
        }
      }
    }
  }
  return found;
}

/** Whether a file with other names is one of the home's secret files (`~/.ssh/id_rsa` linked as `bin/tool-data`). */
function isSecretFileLink(file: string, secretFiles: ReadonlySet<string>): boolean {
  if (secretFiles.size === 0) return false;
  try {
    const stat = lstatSync(file);
    return stat.nlink > 1 && secretFiles.has(`${stat.dev}:${stat.ino}`);
  } catch {
    return false;
  }
}

/**
 * The home's secret files as `device:inode`, those with other names only: the files of
 * HOME_SECRETS and of the secret folders (a bounded walk), to know them under any name.
 */
export function secretFileIdentities(home: string, limit = 2_000): Set<string> {
  const identities = new Set<string>();
  let seen = 0;
  const visit = (absolute: string, depth: number) => {
    if (++seen > limit) return;
    let stat;
    try {
      stat = lstatSync(absolute);
    } catch {
      return;
    }
    if (stat.isFile() && stat.nlink > 1) identities.add(`${stat.dev}:${stat.ino}`);
    else if (stat.isDirectory() && depth < 4)
      for (const entry of read(absolute, limit)) visit(path.join(absolute, entry.name), depth + 1);
  };
  for (const name of HOME_SECRETS) visit(path.join(home, name), 0);
  return identities;
}

/**
 * What to bind and what to cover, in order: each tool folder at its real path, then at its alias
 * (a link elsewhere in the home, unless a bound folder shows it already), then the credentials
 * found in it covered at every place it is seen.
 */
export function homeMounts(plan: ConfinementPlan): {
  binds: Array<{ source: string; dest: string }>;
  covers: Array<{ path: string; kind: 'file' | 'folder' }>;
} {
  const tools = homeTools(plan);
  const reals = [...new Set(tools.map((tool) => tool.real))];
  const binds = reals.map((real) => ({ source: real, dest: real }));
  for (const tool of tools)
    if (tool.alias && !reals.some((real) => isInside(real, tool.alias!)))
      binds.push({ source: tool.real, dest: tool.alias });
  const covers: Array<{ path: string; kind: 'file' | 'folder' }> = [];
  for (const credential of toolCredentials(tools, secretFileIdentities(plan.home))) {
    for (const bind of binds) {
      if (!isInside(bind.source, credential.path)) continue;
      covers.push({ path: path.join(bind.dest, path.relative(bind.source, credential.path)), kind: credential.kind });
    }
  }
  return { binds, covers: uniqueBy(covers) };
}

function uniqueBy(covers: Array<{ path: string; kind: 'file' | 'folder' }>) {
  return [...new Map(covers.map((cover) => [cover.path, cover])).values()];
}

/** Up to `limit` entries of a folder, read a few at a time (never the whole of a huge folder). */
function read(folder: string, limit: number): Dirent[] {
  const entries: Dirent[] = [];
  let handle;
  try {
    handle = opendirSync(folder, { bufferSize: 256 });
  } catch {
    return entries;
  }
  try {
    for (let entry = handle.readSync(); entry && entries.length < limit; entry = handle.readSync()) entries.push(entry);
  } catch {
    // Unreadable midway: what was read is scanned.
  } finally {
    handle.closeSync();
  }
  return entries;
}

/** The home's known secrets and the extra hidden paths that exist, with their kind. */
export function existingSecrets(plan: ConfinementPlan): Array<{ path: string; kind: 'file' | 'folder' }> {
  return [...HOME_SECRETS.map((name) => path.join(plan.home, name)), ...plan.hidden].flatMap((secret) => {
    const kind = kindOf(secret);
    return kind ? [{ path: secret, kind }] : [];
  });
}
