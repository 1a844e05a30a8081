/**
 * Paths that always need an explicit, modal yes, whatever the policy says (SPEC 4.1): version
 * control, editor and OpenAgent configuration, CI workflows, environment files, lock files.
 */
const PROTECTED = [
  /(^|\/)\.git(\/|$)/,
  /(^|\/)\.vscode(\/|$)/,
  /(^|\/)\.openagent(\/|$)/,
  /(^|\/)\.github\/workflows(\/|$)/,
  /(^|\/)\.env[^/]*$/,
  /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|poetry\.lock|Gemfile\.lock|composer\.lock|go\.sum)$/,
];

/** Whether a workspace-relative path is protected. Paths that climb out (`..`) are, too. */
export function isProtectedPath(relativePath: string): boolean {
  const normalized = relativePath.replace(/^\.\/+/, '');
  if (normalized.startsWith('../') || normalized === '..' || normalized.startsWith('/')) return true;
  return PROTECTED.some((pattern) => pattern.test(normalized));
}

/** The path a tool call is about, if its input names one. */
export function pathOfInput(input: unknown): string | undefined {
  const candidate = typeof input === 'object' && input !== null ? (input as { path?: unknown }).path : undefined;
  return typeof candidate === 'string' ? candidate : undefined;
}
