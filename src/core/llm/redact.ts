/**
 * Removes secrets from anything that leaves the process as data: traces, logs, exports.
 * Known keys are replaced wherever they occur, whole, in part or encoded (secret-matcher.ts);
 * key-shaped strings and auth headers too, in case a key reached a payload by another route
 * (a user pasting it into a prompt).
 */
import { SecretMatcher } from './secret-matcher';

/** Key shapes, in one pass: Anthropic, OpenAI, bearer tokens, GitHub, AWS access keys. */
const KEY_SHAPES =
  /sk-ant-[A-Za-z0-9_-]{8,}|sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}|\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*|\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}|\bAKIA[0-9A-Z]{16}\b/g;
/** Cheap first looks: the costly patterns run only on text that could hold what they find. */
const MAY_HOLD_KEY = /sk-|Bearer|_[A-Za-z0-9]{20}|AKIA/;
const MAY_ASSIGN_SECRET = /key|token|secret|passw|passphrase|credential|dsn/i;
const SECRET_FIELD = /^(?:api[-_]?key|x-api-key|authorization|password|secret|token|access[-_]?token)$/i;
export const REDACTED = '[REDACTED]';

/** A private key block, whole. */
const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(-----END \1PRIVATE KEY-----|$)/g;
/**
 * `NAME=value` / `NAME: value` lines whose name says secret (`.env` files, `printenv`, YAML):
 * the value goes, the name stays so the reader knows what was there.
 */
const SECRET_WORDS =
  'API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|DSN';
const SECRET_NAME = `(?:(?:[A-Za-z0-9]+[_.-])*(?:${SECRET_WORDS}|${SECRET_WORDS.toLowerCase()})(?:[_.-][A-Za-z0-9]+)*|[a-z][a-z0-9]*(?:Token|Secret|Password|Passwd|Credentials?)|(?:api|access|secret|private|signing|encryption)Key)`;
const SECRET_ASSIGNMENT = new RegExp(
  `(^|[\\s"'{,;]|export\\s+)(${SECRET_NAME})(["']?\\s*[=:]\\s*["']?)([^\\s"'\`,;}]{4,})`,
  'gm',
);

/**
 * The secrets to find: a list (its matcher is built for the call: one-off uses, a key or two),
 * or a matcher built once for a list that is used again and again (HeldSecrets.matcher) — so
 * no cache of matchers lives in this module.
 */
export type KnownSecrets = readonly string[] | SecretMatcher;

function matcherOf(known: KnownSecrets): SecretMatcher | undefined {
  // A list is an array; anything else is a matcher. Not `instanceof`: the activation bundle
  // (extension.ts makes HeldSecrets) and the lazy runtime each carry their own SecretMatcher class.
  if (!Array.isArray(known)) {
    const matcher = known as SecretMatcher;
    return matcher.empty ? undefined : matcher;
  }
  return known.length > 0 ? new SecretMatcher(known) : undefined;
}

/** Whether there is any secret to find. */
export function holdsAny(known: KnownSecrets): boolean {
  return matcherOf(known) !== undefined;
}

/** Only the held secrets (whole, in part, encoded): for text whose other key-like words must stay. */
export function redactKnown(text: string, knownSecrets: KnownSecrets): string {
  return matcherOf(knownSecrets)?.replace(text, REDACTED) ?? text;
}

/**
 * A copy of `value` with the held secrets gone from every string (and nothing else changed):
 * parts without one are the same objects, so a long history costs one look, not one copy.
 */
export function redactKnownValue<T>(value: T, knownSecrets: KnownSecrets, memo?: TextMemo): T {
  const matcher = matcherOf(knownSecrets);
  if (!matcher) return value;
  const replace = (text: string): string => {
    // `memo` (the caller's, for one matcher): a text already looked at is not looked at again.
    if (!memo || text.length < 64) return matcher.replace(text, REDACTED);
    const known = memo.get(text);
    if (known !== undefined) return known;
    const result = matcher.replace(text, REDACTED);
    memo.set(text, result);
    return result;
  };
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') return replace(node);
    if (Array.isArray(node)) {
      const items = node.map(visit);
      return items.some((item, index) => item !== node[index]) ? items : node;
    }
    if (node && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      let copy: Record<string, unknown> | undefined;
      for (const [key, child] of Object.entries(node)) {
        const redacted = visit(child);
        if (redacted !== child) (copy ??= { ...(node as Record<string, unknown>) })[key] = redacted;
      }
      return copy ?? node;
    }
    return node;
  };
  return visit(value) as T;
}

/** Shorter texts are redacted again rather than looked up (the lookup would cost as much). */
const MEMO_MIN_CHARS = 1024;

/** Texts already redacted, and what they became. */
export interface TextMemo {
  get(text: string): string | undefined;
  set(text: string, redacted: string): void;
}

export function redactText(text: string, knownSecrets: KnownSecrets = []): string {
  return redactWith(text, matcherOf(knownSecrets));
}

function redactWith(text: string, matcher: SecretMatcher | undefined): string {
  let result = matcher ? matcher.replace(text, REDACTED) : text;
  if (MAY_HOLD_KEY.test(result)) result = result.replace(KEY_SHAPES, REDACTED);
  if (result.includes('-----BEGIN')) result = result.replace(PRIVATE_KEY, REDACTED);
  if (!MAY_ASSIGN_SECRET.test(result)) return result;
  return result.replace(SECRET_ASSIGNMENT, (whole, before: string, name: string, between: string, value: string) =>
    value === REDACTED || value.startsWith('$') ? whole : `${before}${name}${between}${REDACTED}`,
  );
}

/**
 * A deep copy of `value` with secrets removed from every string and secret-named field. Walked
 * without recursion, so no depth of nesting (a value another process sent) overflows the stack;
 * an object met twice is copied once, so a cycle stays a cycle instead of looping.
 */
export function redactValue<T>(value: T, knownSecrets: KnownSecrets = [], memo?: TextMemo): T {
  // One matcher for the whole value, however many strings it holds.
  const matcher = matcherOf(knownSecrets);
  const text = (node: string): string => {
    // `memo` (the caller's, for these secrets): a long text already looked at is not looked at again.
    if (!memo || node.length < MEMO_MIN_CHARS) return redactWith(node, matcher);
    const known = memo.get(node);
    if (known !== undefined) return known;
    const result = redactWith(node, matcher);
    memo.set(node, result);
    return result;
  };
  const leaf = (node: unknown, key?: string): unknown =>
    typeof node === 'string' ? (key && SECRET_FIELD.test(key) ? REDACTED : text(node)) : node;
  if (typeof value !== 'object' || value === null) return leaf(value) as T;
  const copies = new Map<object, unknown[] | Record<string, unknown>>();
  const pending: Array<[object, unknown[] | Record<string, unknown>]> = [];
  const copyOf = (node: object) => {
    let copy = copies.get(node);
    if (!copy) {
      copy = Array.isArray(node) ? new Array<unknown>(node.length) : {};
      copies.set(node, copy);
      pending.push([node, copy]);
    }
    return copy;
  };
  const child = (node: unknown, key?: string) =>
    typeof node === 'object' && node !== null ? copyOf(node) : leaf(node, key);
  const root = copyOf(value);
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    if (Array.isArray(from))
      for (let index = 0; index < from.length; index++) (to as unknown[])[index] = child(from[index]);
    else
      for (const [key, node] of Object.entries(from))
        // defineProperty: a field named `__proto__` stays a field of the copy.
        Object.defineProperty(to, key, {
          value: child(node, key),
          enumerable: true,
          writable: true,
          configurable: true,
        });
  }
  return root as T;
}
