/**
 * Whether a variable's VALUE is a credential, whatever its name says (issue 32, item 2): names
 * are chosen by whoever set the variable, so `OTEL_EXPORTER_OTLP_HEADERS`, `REPO=https://TOKEN@host`
 * or `EXTRA=Authorization=Bearer …` carry keys under names no list of words foresees. The value
 * is judged by its syntax: a URL with a user part, an auth scheme with its credential, a header
 * or option list with an auth-ish key, a known token shape, a token-looking string.
 */

/** A URL with any user part: `scheme://user@`, `scheme://user:password@` (a token as the user is a login too). */
const URL_USERINFO = /\b[a-z][a-z0-9+.-]*:\/\/[^/\s?#@]+@/i;
/**
 * A login and password before a host without a scheme, as proxies and curl take them
 * (`user:pass@proxy:3128`, `//user:pw@host`) — not `mailto:me@host` nor `git@host:repo`.
 */
const BARE_USERINFO = /(?:^|[\s,;='"(])(?:\/\/)?(?!(?:mailto|sips?|xmpp|tel):)[^\s/@:'"]+:[^\s/@'"]+@[A-Za-z0-9[]/i;
/** A program's option that takes `login:password` (curl's `-u`, `--user`, `--proxy-user`). */
const USER_OPTION = /(?:^|\s)(?:-u|-U|--user|--proxy-user)(?:\s+|=)["']?([^\s:"']+:[^\s"']+)/;
/** An HTTP auth scheme followed by its credential, anywhere in the value. */
const AUTH_SCHEME =
  /\b(?:Bearer|Basic|Digest|Token|Negotiate|NTLM|AWS4-HMAC-SHA256|ApiKey|SSWS)\s+[A-Za-z0-9._~+/=,:-]{6,}/i;
/** Known token shapes (providers, forges, clouds, registries, chat tools), JWTs, private keys. */
const TOKEN_SHAPE =
  /\b(?:ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|gldt-|sk-|sk_live_|sk_test_|rk_live_|pk_live_|xox[abprs]-|AKIA[0-9A-Z]{12}|ASIA[0-9A-Z]{12}|AIza[0-9A-Za-z_-]{20}|ya29\.|npm_[A-Za-z0-9]{30}|hf_[A-Za-z0-9]{30}|pypi-[A-Za-z0-9_-]{20}|dop_v1_|shpat_|SG\.[A-Za-z0-9_-]{16})|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.|-----BEGIN [A-Z ]*PRIVATE KEY/;
/** Connection-string and query settings that hold a credential, however they are capitalised. */
const SECRET_SETTING =
  /(?:^|[?&;,\s])(?:--?)?\s*(?:password|passwd|pwd|secret|token|access_?key|accountkey|sharedaccesskey|sharedaccesssignature|sig|api_?key|auth)\s*=/i;
/**
 * Keys of `key=value` / `key: value` items that name a credential (header lists such as
 * `Authorization=…,x-honeycomb-team=…`, option lists, connection strings), judged by the key's
 * last word: `api-key`, `_authToken`, `client_secret` are credentials, `StrictHostKeyChecking` is not.
 */
const AUTH_ISH_LAST_WORD =
  /^(?:auth|authorization|authtoken|key|apikey|token|secret|password|passwd|pwd|pass|passphrase|credentials?|signature|sig|session|sessionid|cookie|bearer|jwt|license|licensekey)$/i;
/** Vendors' auth headers whose last word says nothing (Honeycomb's team key, ID tokens). */
const AUTH_HEADER = /^x-[a-z0-9-]*-(?:team|id-token|user-token)$/i;
/**
 * One item of a list: `key=value`, `key: value`, `"key": "value"` (JSON, YAML, TOML), `--key=value`,
 * the key an identifier (not `*.key=01;31`). The value is looked at, not consumed: a URL's query
 * (`https://host/x?sig=…`) holds more items after the first `key:`.
 */
const LIST_ITEM =
  /(?:^|[^A-Za-z0-9_.*-]|(?<=(?:^|\s)--?))["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*[=:]\s*(?=["']?([^,;&\s"'{}[\]:=][^,;&\s"'{}[\]]*)?)/g;
/** Characters of a token: base64, base64url, hex, separators keys use. */
const TOKEN = /^[A-Za-z0-9_\-+/=.~]+$/;

/** Whether `value` holds a credential by what it is. */
export function isSecretValue(raw: string): boolean {
  // Compatibility forms folded (`Ｂearer` is `Bearer`), quotes and spaces around a value dropped.
  const value = raw.normalize('NFKC').replace(/[\u200b-\u200f\u2060\ufeff]/g, '');
  if (value.trim().length < 6) return false;
  if (
    URL_USERINFO.test(value) ||
    BARE_USERINFO.test(value) ||
    USER_OPTION.test(value) ||
    AUTH_SCHEME.test(value) ||
    TOKEN_SHAPE.test(value) ||
    SECRET_SETTING.test(value)
  )
    return true;
  if (/[=:]/.test(value) && holdsAuthItem(value)) return true;
  if (holdsTokenWord(value)) return true;
  return isEncodedCredential(unquoted(value));
}

/** The value without the spaces and quotes around it. */
function unquoted(value: string): string {
  return value
    .trim()
    .replace(/^(["'`])(.*)\1$/s, '$2')
    .trim();
}

/**
 * A token among the value's words: the value whole (quoted or not), or one part of a URL's
 * path or a list (`https://hooks.example.com/services/T0/B0/<key>`, a webhook's key in its path).
 */
function holdsTokenWord(value: string): boolean {
  if (isTokenLooking(unquoted(value))) return true;
  if (value.length > 4096) return false;
  return value.split(/[\s/?#&,;=:"'()[\]{}<>|]+/).some((word) => word !== value && isTokenLooking(word));
}

/**
 * Base64 of a credential (`dXNlcjpwYXNz` is `user:pass`, HTTP Basic's form), or of a value that
 * holds one: the value decodes to text, and that text is a login:password pair or a secret.
 */
function isEncodedCredential(value: string): boolean {
  if (value.length < 8 || value.length > 8192 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return false;
  if (/^[0-9a-f]+$/i.test(value)) return false;
  const text = Buffer.from(value, /[-_]/.test(value) ? 'base64url' : 'base64').toString('utf8');
  if (text.length < 3 || !/^[\x20-\x7e\t\r\n]+$/.test(text)) return false;
  return /^[^\s:]{1,256}:[^\s]{1,}$/.test(text) || (text !== value && isSecretValue(text));
}

/** A list whose items include an auth-ish key with a value, or a token-looking value. */
function holdsAuthItem(value: string): boolean {
  if (jsonHoldsAuth(value)) return true;
  for (const match of value.matchAll(LIST_ITEM)) {
    const [, key = '', itemValue = ''] = match;
    if (itemValue.length === 0) continue;
    if (isAuthIshKey(key)) return true;
    if (isTokenLooking(itemValue)) return true;
  }
  return false;
}

/** A JSON value (`{"auths":{"host":{"auth":"…"}}}`, `{"token":"…"}`) with an auth-ish key or a secret string, at any depth. */
function jsonHoldsAuth(value: string): boolean {
  const text = value.trim();
  if (!/^[[{]/.test(text) || text.length > 65_536) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const visit = (node: unknown, depth: number): boolean => {
    if (depth > 32) return false;
    if (typeof node === 'string') return node !== text && isSecretValue(node);
    if (typeof node !== 'object' || node === null) return false;
    return Object.entries(node).some(
      ([key, child]) =>
        (isAuthIshKey(key) && (typeof child === 'string' ? child.length > 0 : typeof child === 'number')) ||
        visit(child, depth + 1),
    );
  };
  return visit(parsed, 0);
}

/**
 * The credentials inside a value, to hold and redact wherever they appear: the password (or a
 * token as the user) of a URL, what follows an auth scheme, the values of auth-ish list items,
 * or the value itself when it is one word that is not a path. Never the parts around them —
 * holding `https://` or `/home/` would redact every URL and path.
 */
export function credentialsIn(value: string): string[] {
  const found: string[] = [];
  for (const match of value.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/([^/\s?#@:]+)(?::([^/\s?#@]+))?@/gi)) {
    const [, user = '', password] = match;
    found.push(decodeOrKeep(password ?? user));
  }
  for (const match of value.matchAll(/\b(?:Bearer|Basic|Digest|Token|ApiKey|SSWS)\s+([A-Za-z0-9._~+/=-]{6,})/gi))
    found.push(match[1]!);
  for (const match of value.matchAll(LIST_ITEM)) {
    const [, key = '', itemValue = ''] = match;
    if (itemValue && isAuthIshKey(key)) found.push(decodeOrKeep(itemValue));
  }
  return found.filter((credential) => credential.length >= 6 && !/^(?:Bearer|Basic|Token)$/i.test(credential));
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether a header (or list item) of this name carries a credential: `Authorization`, `x-api-key`, `x-honeycomb-team`. */
export function isAuthIshKey(key: string): boolean {
  if (AUTH_HEADER.test(key)) return true;
  const words = key.split(/[-_.]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  return AUTH_ISH_LAST_WORD.test(words[words.length - 1] ?? '');
}

/**
 * A string that looks like a generated key: long, no spaces, letters of both cases and digits,
 * characters spread like random ones. Identifiers (UUIDs, commit hashes, hex digests) are kept:
 * they are everywhere in a CI environment and name things, they do not unlock them.
 */
export function isTokenLooking(value: string): boolean {
  if (value.length < 20 || value.length > 4096 || !TOKEN.test(value)) return false;
  if (/^[0-9a-f-]+$/.test(value) || /^[0-9A-F-]+$/.test(value)) return false;
  // Paths (`/opt/Tool2/bin`) and dotted names (`org.Gradle2.jvmargs`) are not keys.
  if (/^[/~.]/.test(value) || /^[A-Za-z0-9]+(?:\.[A-Za-z0-9]+){2,}$/.test(value)) return false;
  const letters = /[a-z]/.test(value) && /[A-Z]/.test(value);
  const digits = /[0-9]/.test(value);
  if (!letters || (!digits && value.length < 28)) return false;
  // Words run together (`MyLongJavaClassName2Impl`) are mostly runs of letters of one case.
  return entropyPerCharacter(value) >= Math.min(4, Math.log2(value.length) * 0.8) && wordShare(value) < 0.7;
}

function entropyPerCharacter(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const share = count / value.length;
    entropy -= share * Math.log2(share);
  }
  return entropy;
}

/** The share of characters in word-like runs: `Name`, `impl`, `HTTP` (random keys rarely have them). */
function wordShare(value: string): number {
  let inWords = 0;
  for (const run of value.match(/[A-Z]?[a-z]{3,}|[A-Z]{4,}/g) ?? []) inWords += run.length;
  return inWords / value.length;
}
