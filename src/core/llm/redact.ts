/**
 * Removes secrets from anything that leaves the process as data: traces, logs, exports.
 * Known keys are replaced wherever they occur; key-shaped strings and auth headers too, in
 * case a key reached a payload by another route (a user pasting it into a prompt).
 */
const KEY_SHAPES = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/g,
  /\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];
const SECRET_FIELD = /^(?:api[-_]?key|x-api-key|authorization|password|secret|token|access[-_]?token)$/i;
export const REDACTED = '[REDACTED]';

export function redactText(text: string, knownSecrets: readonly string[] = []): string {
  let result = text;
  for (const secret of knownSecrets) {
    if (secret.length >= 6) result = result.split(secret).join(REDACTED);
  }
  for (const pattern of KEY_SHAPES) result = result.replace(pattern, REDACTED);
  return result;
}

/** A deep copy of `value` with secrets removed from every string and secret-named field. */
export function redactValue<T>(value: T, knownSecrets: readonly string[] = []): T {
  const visit = (node: unknown, key?: string): unknown => {
    if (typeof node === 'string') return key && SECRET_FIELD.test(key) ? REDACTED : redactText(node, knownSecrets);
    if (Array.isArray(node)) return node.map((item) => visit(item));
    if (node && typeof node === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [childKey, child] of Object.entries(node)) copy[childKey] = visit(child, childKey);
      return copy;
    }
    return node;
  };
  return visit(value) as T;
}
