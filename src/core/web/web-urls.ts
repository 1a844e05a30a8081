/**
 * The URLs web_fetch accepts, and how they are shown. Parsed by the WHATWG URL parser (the one
 * browsers use), so every spelling of an address reaches the checks in one form: `2130706433`,
 * `0x7f.1` and `017700000001` all become 127.0.0.1, `[::ffff:127.0.0.1]` becomes
 * `[::ffff:7f00:1]`, and an internationalised name becomes punycode (`xn--…`), which is what the
 * approval shows, so a look-alike of a trusted domain cannot pass for it.
 */
import { matchesPattern } from '../policy/rule-patterns';

/** Longest URL accepted: longer ones are not pages a person would approve by reading. */
export const MAX_URL_CHARS = 4_000;

export type CheckedUrl = { ok: true; url: URL } | { ok: false; problem: string };

/**
 * Whether `text` is a URL web_fetch may fetch: http or https, no user name or password, no
 * control characters. The problem never repeats the URL, so a password in it is not echoed.
 */
export function checkFetchUrl(text: string): CheckedUrl {
  if (text.length > MAX_URL_CHARS) return { ok: false, problem: `The URL is longer than ${MAX_URL_CHARS} characters.` };
  // The URL parser drops tabs and newlines silently: a URL holding any control character is refused instead.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text))
    return {
      ok: false,
      problem: 'The URL holds control characters (a newline, a tab, a NUL…); write it without them.',
    };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { ok: false, problem: 'It is not a URL web_fetch can read: write a full http:// or https:// address.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      ok: false,
      problem: `${url.protocol.replace(/:$/, '')}: URLs are not fetched: web_fetch reads http:// and https:// pages only.`,
    };
  if (url.username !== '' || url.password !== '')
    return {
      ok: false,
      problem: 'The URL holds a user name or password: web_fetch sends no credentials. Ask without them.',
    };
  if (url.hostname === '') return { ok: false, problem: 'The URL names no host.' };
  return { ok: true, url };
}

/** The host as the checks and policy patterns see it: lower case, punycode, IPv6 without brackets. */
export function urlHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** The URL as shown to people and the model: punycode host, no credentials, no fragment. */
export function displayUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  shown.hash = '';
  return shown.href;
}

/** Whether a host matches one of the policy's host patterns (`docs.*`, `*.python.org`), case-insensitively. */
export function hostMatchesAny(patterns: readonly string[] | undefined, host: string): string | undefined {
  const lower = host.toLowerCase();
  return patterns?.find((pattern) => matchesPattern(pattern.toLowerCase(), lower));
}
