/**
 * Finds the secrets the product holds in text, whole or in part, plain or encoded (issue 32,
 * item 3). A server, a tool or a model can echo a key cut in two (two deltas, two tool
 * outputs) or encoded (base64 of an `Authorization: Basic` header, hex, a URL); so every run
 * of FRAGMENT_CHARACTERS or more consecutive characters of a held secret is found, in each
 * encoding below, in one linear pass per window length (a rolling hash, then an exact check).
 *
 * Text is compared as it reads, not as it is spelled (textView): letters without case, JSON
 * `\uXXXX` and `\/` escapes and HTML character references decoded, compatibility forms folded
 * (fullwidth letters), invisible format characters (zero-width spaces, soft hyphens) dropped.
 *
 * What it cannot find, and the README says: runs shorter than FRAGMENT_CHARACTERS (a secret
 * given out a few characters at a time), secrets shorter than FRAGMENT_MIN_SECRET cut in
 * pieces, and encodings other than those listed (base32, a cipher, the characters reversed or
 * spaced out with visible characters).
 */

/** Runs of this many consecutive characters of a held secret are redacted wherever they appear. */
export const FRAGMENT_CHARACTERS = 8;
/** Secrets shorter than this are redacted only whole (in each encoding): their runs would be words. */
export const FRAGMENT_MIN_SECRET = 12;
/** Shorter values are not held at all: they would match ordinary text. */
export const MIN_SECRET = 6;

/**
 * Public prefixes every key of a kind starts with: runs inside them say nothing about the key
 * and would redact every mention of the kind (`sk-ant-api03-` in documentation).
 */
const PUBLIC_PREFIX =
  /^(?:sk-ant-(?:api|admin|oat)\d\d-|sk-(?:proj|svcacct|or-v1)-|sk-|github_pat_|gh[pousr]_|glpat-|xox[abprs]-|hf_|npm_|pypi-|AKIA|ASIA|AIza|Bearer |Basic )/;

/** One way a secret may be written, and how long a run of it is enough to redact. */
interface Form {
  /** The characters every occurrence of the secret written this way has. */
  core: string;
  /** Runs of this length (or the whole core when shorter) are redacted. */
  window: number;
  /** Runs that start before this index and end inside it are a public prefix. */
  publicPrefix: number;
}

/** The forms of `secret`: plain, URL-encoded, hex, base64 and base64url at each alignment. */
function formsOf(secret: string): Form[] {
  const n = FRAGMENT_CHARACTERS;
  const fragments = secret.length >= FRAGMENT_MIN_SECRET;
  const window = (perCharacter: number, core: string) =>
    fragments ? Math.min(core.length, Math.ceil(n * perCharacter)) : core.length;
  const bytes = Buffer.from(secret, 'utf8');
  const publicPrefix = PUBLIC_PREFIX.exec(secret)?.[0].length ?? 0;
  const forms: Form[] = [{ core: secret, window: window(1, secret), publicPrefix }];
  // Whole, the public prefix goes with the rest (`[REDACTED]`, not `sk-ant[REDACTED]`).
  if (publicPrefix > 0 && fragments) forms.push({ core: secret, window: secret.length, publicPrefix: 0 });
  const add = (core: string, perCharacter: number) => {
    if (core.length >= MIN_SECRET && !forms.some((form) => form.core === core))
      forms.push({ core, window: window(perCharacter, core), publicPrefix: 0 });
  };
  add(encodeURIComponent(secret), 1);
  const hex = bytes.toString('hex');
  add(hex, 2);
  add(hex.toUpperCase(), 2);
  const percent = hex.replace(/../g, '%$&');
  add(percent, 3);
  add(percent.toUpperCase(), 3);
  for (let offset = 0; offset < 3; offset++) {
    // Base64 of the secret preceded by `offset` other bytes: the characters made only of the
    // secret's bits are the same whatever those bytes are.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = encoded.slice(first, end);
    // 8 secret bytes at any alignment cover at least floor((64 - 4) / 6) = 10 whole characters.
    const perCharacter = (8 * n - 4) / 6 / n;
    add(core, perCharacter);
    add(core.replace(/\+/g, '-').replace(/\//g, '_'), perCharacter);
  }
  return forms;
}

/** A polynomial hash modulo 2^32 (32-bit integer arithmetic: fast, and collisions are checked). */
const BASE = 0x01000193;

function hashOf(text: string, start: number, length: number): number {
  let hash = 0;
  for (let index = start; index < start + length; index++) hash = (Math.imul(hash, BASE) + text.charCodeAt(index)) | 0;
  return hash;
}

/** Every run of one length to look for, by hash. */
interface WindowTable {
  length: number;
  runs: Map<number, string[]>;
  /** BASE^(length-1) modulo 2^32, to drop the character leaving the window. */
  leading: number;
  /** One bit per hash (its low 20 bits): most windows of ordinary text stop at this look. */
  seen: Uint32Array;
}

const SEEN_BITS = 20;
const SEEN_MASK = (1 << SEEN_BITS) - 1;

/** A half-open range of text to redact. */
export type Range = [start: number, end: number];

export class SecretMatcher {
  private readonly tables: WindowTable[];
  /** Every form's core, for the streaming hold-back (is this tail the start of one?). */
  private readonly cores: string;
  readonly longestForm: number;

  constructor(secrets: readonly string[]) {
    const byLength = new Map<number, Map<number, string[]>>();
    let longest = 0;
    const cores: string[] = [];
    for (const secret of new Set(secrets)) {
      if (secret.length < MIN_SECRET) continue;
      for (const spelled of formsOf(secret)) {
        // Compared as text is: folded the same way (textView).
        const form = { ...spelled, core: textView(spelled.core).view };
        form.window = Math.min(form.window, form.core.length);
        cores.push(form.core);
        longest = Math.max(longest, form.core.length);
        const runs = byLength.get(form.window) ?? new Map<number, string[]>();
        byLength.set(form.window, runs);
        for (let start = 0; start + form.window <= form.core.length; start++) {
          if (start + form.window <= form.publicPrefix) continue;
          const run = form.core.slice(start, start + form.window);
          const hash = hashOf(run, 0, run.length);
          const bucket = runs.get(hash);
          if (!bucket) runs.set(hash, [run]);
          else if (!bucket.includes(run)) bucket.push(run);
        }
      }
    }
    this.tables = [...byLength].map(([length, runs]) => {
      let leading = 1;
      for (let index = 1; index < length; index++) leading = Math.imul(leading, BASE);
      const seen = new Uint32Array(1 << (SEEN_BITS - 5));
      for (const hash of runs.keys()) seen[(hash & SEEN_MASK) >>> 5]! |= 1 << (hash & 31);
      return { length, runs, leading, seen };
    });
    this.cores = cores.join('\u0000');
    this.longestForm = longest;
  }

  get empty(): boolean {
    return this.tables.length === 0;
  }

  /** The ranges of `text` holding a run of a held secret, sorted and merged. Linear in `text`. */
  find(text: string): Range[] {
    const { view, starts, ends } = textView(text);
    const found = this.findIn(view);
    if (!starts || !ends) return found;
    // Back to the text as spelled: from the first character of the run to the end of its last.
    return merge(found.map(([start, end]) => [starts[start]!, ends[end - 1]!]));
  }

  private findIn(text: string): Range[] {
    const found: Range[] = [];
    for (const table of this.tables) {
      const { length, runs, leading, seen } = table;
      if (text.length < length) continue;
      let hash = hashOf(text, 0, length);
      for (let start = 0; ; start++) {
        const bucket = seen[(hash & SEEN_MASK) >>> 5]! & (1 << (hash & 31)) ? runs.get(hash) : undefined;
        if (bucket && bucket.some((run) => text.startsWith(run, start))) {
          const last = found[found.length - 1];
          if (last && last[1] >= start && last[0] <= start) last[1] = Math.max(last[1], start + length);
          else found.push([start, start + length]);
        }
        if (start + length >= text.length) break;
        hash = (hash - Math.imul(text.charCodeAt(start), leading)) | 0;
        hash = (Math.imul(hash, BASE) + text.charCodeAt(start + length)) | 0;
      }
    }
    return merge(found);
  }

  /** `text` with every range found replaced by `mark`. */
  replace(text: string, mark: string): string {
    if (this.tables.length === 0) return text;
    const ranges = this.find(text);
    if (ranges.length === 0) return text;
    let result = '';
    let at = 0;
    for (const [start, end] of ranges) {
      result += text.slice(at, start) + mark;
      at = end;
    }
    return result + text.slice(at);
  }

  /**
   * How many characters at the end of `text` could be the beginning of a held secret continued
   * by the next piece of a stream: they wait for it, so the halves never show apart.
   */
  pendingTail(text: string): number {
    // Read as find() reads: a character may be spelled in up to SPELLED_LONGEST characters.
    const from = Math.max(0, text.length - this.longestForm * SPELLED_LONGEST);
    const { view, starts } = textView(text.slice(from));
    const limit = Math.min(view.length, this.longestForm);
    let length = 0;
    while (length < limit && this.cores.includes(view.slice(view.length - length - 1))) length++;
    if (length === 0) return 0;
    const start = view.length - length;
    return text.length - (from + (starts ? starts[start]! : start));
  }
}

function merge(ranges: Range[]): Range[] {
  if (ranges.length < 2) return ranges;
  ranges.sort((left, right) => left[0] - right[0]);
  const merged: Range[] = [ranges[0]!];
  for (const range of ranges.slice(1)) {
    const last = merged[merged.length - 1]!;
    if (range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push(range);
  }
  return merged;
}

/** Lower-case ASCII letters only: the same length, so indexes stay where they were. */
function asciiLower(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : text;
}

/** Spellings that read as other characters: escapes, references, invisible and compatibility characters. */
const SPELLED = /[\u0080-\uffff]|\\u[0-9a-fA-F]{4}|\\\/|&#/;
const TOKEN = /\\u([0-9a-fA-F]{4})|\\(\/)|&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));|([\u0080-\uffff])/g;
const INVISIBLE = /^\p{Cf}$/u;
/** The most characters one character can be spelled in (`&#1114111;`), format characters aside. */
const SPELLED_LONGEST = 10;

/**
 * `text` as it reads: ASCII letters lower-cased, and — only when it holds any — JSON and HTML
 * escapes decoded, format characters dropped, compatibility characters folded (NFKC). Where the
 * view differs in length, `starts[i]`/`ends[i]` give the text range its character i came from.
 */
export function textView(text: string): { view: string; starts?: number[]; ends?: number[] } {
  if (!SPELLED.test(text)) return { view: asciiLower(text) };
  const view: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const put = (characters: string, start: number, end: number) => {
    for (const character of characters) {
      for (let unit = 0; unit < character.length; unit++) {
        view.push(character[unit]!);
        starts.push(start);
        ends.push(end);
      }
    }
  };
  let at = 0;
  while (at < text.length) {
    TOKEN.lastIndex = at;
    const token = TOKEN.exec(text);
    const next = token ? token.index : text.length;
    // Plain ASCII up to the next spelling, character by character.
    for (; at < next; at++) put(asciiLower(text[at]!), at, at + 1);
    if (!token) break;
    const end = at + token[0].length;
    const code = token[1] ?? token[3] ?? token[4];
    let decoded = token[2] ?? (code === undefined ? token[0] : codePoint(code, token[4] === undefined ? 16 : 10));
    let to = end;
    // A character outside the BMP: both of its halves together.
    if (token[5] !== undefined && /[\ud800-\udbff]/.test(token[5]) && end < text.length) decoded = text.slice(at, ++to);
    if (!INVISIBLE.test(decoded)) put(asciiLower(decoded.normalize('NFKC')), at, to);
    at = to;
  }
  return { view: view.join(''), starts, ends };
}

function codePoint(digits: string, radix: number): string {
  const value = Number.parseInt(digits, radix);
  return value <= 0x10ffff ? String.fromCodePoint(value) : '\ufffd';
}
