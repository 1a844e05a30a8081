/**
 * Every secret the product holds, in one place (issue 32, item 3): provider keys (settings,
 * SecretStorage, the environment, the policy's routes), telemetry headers, the team database's
 * password, MCP servers' secrets. The composition root makes one and hands it to every sink
 * (the conversation's events, the store, traces, telemetry, the CLI's output), so a key that a
 * server echoes back is redacted wherever it would appear — not only where someone remembered
 * to pass the key in use. A value, not a singleton: tests and each window have their own.
 */
import { MIN_SECRET, SecretMatcher } from './secret-matcher';
import { REDACTED, redactText, redactValue, type KnownSecrets } from './redact';
import { isSecretVariable } from '../policy/command-env';
import { credentialsIn, isAuthIshKey, isTokenLooking } from '../policy/secret-values';

/** Names of variables whose whole value is a key (ANTHROPIC_API_KEY, GITHUB_TOKEN, PGPASSWORD). */
const KEY_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|_PAT|CREDENTIALS?|_PWD)$/i;

export class HeldSecrets {
  private values: readonly string[] = [];
  /** The matcher of `values`, built when first needed after they change (it costs their length). */
  private built: SecretMatcher | undefined;

  constructor(initial: Iterable<string | undefined> = []) {
    this.add(...initial);
  }

  /**
   * Holds more secrets. A credential written with its scheme (`Bearer …`, `Basic …`) or as a URL
   * with a password is held as what is secret in it, so both the whole and the part are found.
   */
  add(...secrets: Array<string | undefined>): void {
    const next = new Set(this.values);
    for (const secret of secrets) for (const part of secretParts(secret)) next.add(part);
    // A new matcher only when something changed.
    if (next.size === this.values.length) return;
    this.values = Object.freeze([...next]);
    this.built = undefined;
  }

  /**
   * Holds the credentials of every variable of `env` that names or holds one (command-env.ts),
   * whether or not the product uses it: a key it read (OPENAGENT_API_KEY, ANTHROPIC_API_KEY), a
   * telemetry header, the team database's password — and any other the user's shell carries.
   */
  addEnvironment(env: Readonly<Record<string, string | undefined>>): void {
    const found: string[] = [];
    for (const [name, raw] of Object.entries(env)) {
      const value = raw?.trim();
      if (!value || !isSecretVariable(name, value)) continue;
      const inside = credentialsIn(value);
      found.push(...inside);
      // The value itself when it is the key: a key's name, or a token's look. Not `ubuntu`
      // (DESKTOP_SESSION) nor a path (SSH_AUTH_SOCK): held values are redacted everywhere.
      const word = /^\S{8,}$/.test(value) && !/^[/~.]|:\/\//.test(value);
      if (inside.length === 0 && word && (KEY_NAME.test(name) || isTokenLooking(value))) found.push(value);
    }
    this.add(...found);
  }

  /**
   * Holds the credentials among request headers (a telemetry collector's, an MCP server's):
   * the values of auth headers, and credentials inside the others — not `application/json`.
   */
  addHeaders(headers: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(headers)) {
      if (isAuthIshKey(name)) this.add(value);
      else this.add(...credentialsIn(value), ...(isTokenLooking(value.trim()) ? [value.trim()] : []));
    }
  }

  /** The secrets held now (the same array until one is added). */
  list = (): readonly string[] => this.values;

  /** What finds them: built once per set of secrets, for every sink to share (redact.ts KnownSecrets). */
  matcher = (): SecretMatcher => (this.built ??= new SecretMatcher(this.values));

  redact = (text: string): string => redactText(text, this.matcher());

  redactValue = <T>(value: T): T => redactValue(value, this.matcher());

  /** A redactor for one stream of text (deltas): see SecretStream. */
  stream(): SecretStream {
    return new SecretStream(this.matcher);
  }
}

/**
 * Redacts a stream of pieces (an answer's deltas) so a held secret cut between two pieces is
 * still found: the end of each piece that could begin a secret waits for the next piece (at
 * most the longest encoded form of a held secret), and `end()` gives what is left.
 */
export class SecretStream {
  private pending = '';

  /** `matcher`: read at each piece, so secrets held after the stream began are found too. */
  constructor(private readonly matcher: () => SecretMatcher) {}

  /** The redacted text that may be shown now (possibly empty). */
  push(piece: string): string {
    const text = this.pending + piece;
    const matcher = this.matcher();
    if (matcher.empty) {
      this.pending = '';
      return redactText(text, matcher);
    }
    let cut = text.length - matcher.pendingTail(text);
    // A secret found across the cut may go on in the next piece: it waits whole.
    for (const [start, end] of matcher.find(text)) if (end >= cut && start < cut) cut = start;
    this.pending = text.slice(cut);
    return cut === 0 ? '' : redactText(text.slice(0, cut), matcher);
  }

  /** What is still waiting, redacted: the stream ended. */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    return rest ? redactText(rest, this.matcher()) : '';
  }
}

/** What to hold of a credential: itself, and the secret part of a scheme or URL. */
function secretParts(secret: string | undefined): string[] {
  const value = secret?.trim();
  if (!value || value.length < MIN_SECRET || value === REDACTED) return [];
  // A URL with a password is held as its password: holding `https://…` would redact its host everywhere.
  const parts = /^[a-z][a-z0-9+.-]*:\/\/[^/\s]*@/i.test(value) ? [] : [value];
  const scheme = /^(?:Bearer|Basic|Token|ApiKey|Digest)\s+(\S+)$/i.exec(value);
  if (scheme) parts.push(scheme[1]!);
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
  if (basic) {
    // `user:password` inside: the password is what a server may echo decoded.
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const password = decoded.slice(decoded.indexOf(':') + 1);
    if (/^[\x20-\x7e]+$/.test(decoded) && decoded.includes(':')) parts.push(password);
  }
  try {
    const url = new URL(value);
    if (url.password) parts.push(decodeURIComponent(url.password));
    else if (url.username && url.username.length >= 16) parts.push(decodeURIComponent(url.username));
  } catch {
    // Not a URL.
  }
  return parts.filter((part) => part.length >= MIN_SECRET);
}

/**
 * A function giving the matcher of what a `() => KnownSecrets` option returns, remembering the
 * last list it was built for: one per user (a conversation), so a caller handing lists (tests,
 * embedders) does not rebuild it for every event.
 */
export function matcherOfKnown(known: () => KnownSecrets): () => SecretMatcher {
  let list: readonly string[] | undefined;
  let built: SecretMatcher | undefined;
  return () => {
    const secrets = known();
    // Not `instanceof`: the activation bundle and the lazy runtime each carry their own class.
    if (!Array.isArray(secrets)) return secrets as SecretMatcher;
    if (secrets !== list || !built) {
      list = secrets;
      built = new SecretMatcher(secrets);
    }
    return built;
  };
}
