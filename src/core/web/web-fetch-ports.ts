/**
 * The ports web_fetch acts through (issue 36): the network (src/node/web/http-page-fetcher.ts)
 * and the HTML-to-Markdown conversion (src/node/web/html-to-markdown.ts, loaded on first use).
 * The core decides what is asked, allowed and shown; the adapters only fetch and convert.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution (every address of a name), a port so tests can answer as a rebinding DNS would. */
export interface HostResolver {
  lookup(host: string): Promise<ResolvedAddress[]>;
}

export interface FetchLimits {
  /** Bytes of body read, after decompression; the rest is cut. */
  maxBytes: number;
  /** Milliseconds for the whole fetch, redirects included. */
  timeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
}

export interface FetchRequest {
  url: URL;
  signal: AbortSignal;
  limits: FetchLimits;
  /** Whether the user's own policy lets this host (as in the URL) reach private addresses. */
  allowsPrivate(host: string): boolean;
  /** Whether a redirect to `url` is followed; otherwise the result says where the page leads. */
  mayFollow(url: URL): boolean;
  /** Why a response of this media type (lower case, no parameters; '' when absent) is not read, or undefined to read it. */
  refusesType(mediaType: string): string | undefined;
}

export type FetchResult =
  | {
      kind: 'page';
      /** Where the body came from, after redirects. */
      url: URL;
      status: number;
      /** The Content-Type header as sent ('' when absent). */
      contentType: string;
      body: Uint8Array;
      /** Why the body is not whole (size, time), in words; undefined when it is. */
      cut?: string;
    }
  | { kind: 'redirect'; url: URL; location: URL; status: number }
  | { kind: 'refused'; reason: string };

export interface WebFetcher {
  fetch(request: FetchRequest): Promise<FetchResult>;
}

export interface ConvertedPage {
  title?: string;
  markdown: string;
  /** Why the page was shown as plain text instead (nested too deeply…), if it was. */
  note?: string;
  /** The characters of text the whole page has, when only its first `maxChars` were converted. */
  textChars?: number;
}

export interface HtmlConverter {
  /** The page as Markdown; the text after the first `maxChars` characters may be left out (not converted). */
  toMarkdown(html: string, url: string, maxChars?: number): ConvertedPage;
}
