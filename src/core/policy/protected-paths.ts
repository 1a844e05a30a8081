/**
 * Paths that always need an explicit, modal yes to change, whatever the policy says (SPEC 4.1):
 * version control, editor, OpenAgent and dev-container configuration, `.github` (CI workflows, VS Code's
 * custom agents), `.claude` (Claude Code's agents, hooks and rules, which we honour too), git hooks
 * (`.husky`, `.githooks`), environment files, package manifests (their scripts run on a later
 * `npm test`), package-manager settings and lock files. And files whose *reading* asks: secrets.
 *
 * Matching folds case, so `.GIT/config` is `.git/config` on a file system that folds case (and
 * on one that does not, asking once too often is the safe mistake).
 */
/** Lock files: protected for the file tools, but writable to confined commands (installs rewrite them). */
const LOCK_FILE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|cargo\.lock|poetry\.lock|gemfile\.lock|composer\.lock|go\.sum)$/;

const PROTECTED = [
  /(^|\/)\.git(\/|$)/,
  /(^|\/)\.vscode(\/|$)/,
  /(^|\/)\.openagent(\/|$)/,
  /(^|\/)\.github(\/|$)/,
  // A custom agent's own file lists its tools: an agent that could rewrite it could give itself any.
  /(^|\/)\.claude(\/|$)/,
  /(^|\/)\.husky(\/|$)/,
  /(^|\/)\.githooks(\/|$)/,
  /(^|\/)\.devcontainer(\/|$)/,
  /(^|\/)\.env[^/]*$/,
  /(^|\/)(package\.json|\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.cjs|bunfig\.toml)$/,
  LOCK_FILE,
];

/** Files whose content is a secret: reading one asks, and says why. */
const SECRET = [
  /(^|\/)\.env(?!\.(example|sample|template|dist)$)[^/]*$/,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/,
  /(^|\/)id_(rsa|dsa|ecdsa|ed25519)[^/]*$/,
  /(^|\/)(\.npmrc|\.pypirc|\.netrc|_netrc|\.git-credentials|\.pgpass|\.htpasswd|credentials(\.json)?|secrets?\.(json|ya?ml|toml))$/,
  /(^|\/)\.(aws|ssh|gnupg|docker|kube)\//,
];

const normalize = (relativePath: string) => relativePath.replace(/^(\.\/+)+/, '').toLowerCase();

/** Whether a workspace-relative path is protected. Paths that climb out (`..`) are, too. */
export function isProtectedPath(relativePath: string): boolean {
  const normalized = normalize(relativePath);
  if (normalized.startsWith('../') || normalized === '..' || normalized.startsWith('/')) return true;
  return PROTECTED.some((pattern) => pattern.test(normalized));
}

/** Whether a workspace-relative path is a package manager's lock file. */
export function isLockFile(relativePath: string): boolean {
  return LOCK_FILE.test(normalize(relativePath));
}

/** Whether a workspace-relative path names a file holding secrets (keys, tokens, `.env`). */
export function isSecretPath(relativePath: string): boolean {
  const normalized = normalize(relativePath);
  return SECRET.some((pattern) => pattern.test(normalized));
}

/**
 * Whether a workspace-relative path names a secret file or a folder of them (`.ssh`, `.aws`…):
 * a read or search that targets it asks.
 */
export function isSecretPlace(relativePath: string): boolean {
  return isSecretPath(relativePath) || isSecretPath(`${relativePath.replace(/\/+$/, '')}/`);
}

/** The path a tool call is about, if its input names one (for tools that declare no traits). */
export function pathOfInput(input: unknown): string | undefined {
  const candidate = typeof input === 'object' && input !== null ? (input as { path?: unknown }).path : undefined;
  return typeof candidate === 'string' ? candidate : undefined;
}
