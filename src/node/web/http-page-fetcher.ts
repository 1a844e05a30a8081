/**
 * The network side of web_fetch (issue 36), on node:http and node:https. Each hop of a fetch —
 * the first URL and every redirect — is checked the same way: the scheme, no credentials, and
 * every address the host name resolves to (blocked-addresses.ts) unless the user's policy lets
 * that host reach private addresses. The connection then goes to the address that was checked
 * (a `lookup` that answers with it), and the socket's remote address is checked again on
 * connect: a DNS answer that changes between the check and the connection cannot lead the
 * request to the user's own network. Bodies are read up to a byte limit after decompression
 * (a gzip bomb stops there), within a time limit for the whole fetch.
 */
import { promises as dns } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { isIP, type Socket } from 'node:net';
import * as tls from 'node:tls';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { blockedAddressReason } from '../../core/web/blocked-addresses';
import type {
  FetchRequest,
  FetchResult,
  HostResolver,
  ResolvedAddress,
  WebFetcher,
} from '../../core/web/web-fetch-ports';
import { plainToken } from '../../core/web/untrusted-text';
import { checkFetchUrl, displayUrl, urlHost } from '../../core/web/web-urls';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address of the name. */
export const systemResolver: HostResolver = {
  async lookup(host) {
    const answers = await dns.lookup(host, { all: true, verbatim: true });
    return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  },
};

export interface HttpPageFetcherDeps {
  resolver?: HostResolver;
  /** Why an address is refused (tests may treat a local server's address as public). */
  blockedReason?: (address: string) => string | undefined;
}

/** A refusal whose message is what the model reads. */
class Refusal extends Error {}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

export class HttpPageFetcher implements WebFetcher {
  private readonly resolver: HostResolver;
  private readonly blockedReason: (address: string) => string | undefined;

  constructor(deps: HttpPageFetcherDeps = {}) {
    this.resolver = deps.resolver ?? systemResolver;
    this.blockedReason = deps.blockedReason ?? blockedAddressReason;
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    const { limits } = request;
    const stop = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, limits.timeoutMs);
    const onAbort = () => stop.abort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const seconds = `${Math.round(limits.timeoutMs / 100) / 10} s`;
    try {
      let url = request.url;
      for (let hop = 0; ; hop++) {
        const target = await this.checkedAddress(url, request, stop.signal);
        const response = await this.open(url, target, request, stop.signal);
        const location = response.headers.location;
        if (REDIRECTS.has(response.statusCode ?? 0) && location) {
          response.destroy();
          if (hop >= limits.maxRedirects)
            throw new Refusal(
              `${displayUrl(request.url)} redirects more than ${limits.maxRedirects} times; web_fetch stopped.`,
            );
          const next = checkFetchUrl(safeResolve(location, url));
          if (!next.ok) throw new Refusal(`${displayUrl(url)} redirects to a URL web_fetch refuses: ${next.problem}`);
          if (!request.mayFollow(next.url))
            return { kind: 'redirect', url, location: next.url, status: response.statusCode ?? 0 };
          url = next.url;
          continue;
        }
        const contentType = String(response.headers['content-type'] ?? '');
        const refusal = request.refusesType(contentType.split(';')[0]!.trim().toLowerCase());
        if (refusal) {
          response.destroy();
          throw new Refusal(refusal);
        }
        const body = await readBody(response, limits.maxBytes, () => timedOut);
        const cut =
          body.cut === 'size'
            ? `The page is larger than ${megabytes(limits.maxBytes)}${body.decoded ? ' once decompressed' : ''}: it was cut there.`
            : body.cut === 'time'
              ? `The page did not finish arriving within ${seconds}: it was cut there.`
              : undefined;
        return {
          kind: 'page',
          url,
          status: response.statusCode ?? 0,
          contentType,
          body: body.bytes,
          ...(cut ? { cut } : {}),
        };
      }
    } catch (error) {
      if (error instanceof Refusal) return { kind: 'refused', reason: error.message };
      if (request.signal.aborted) throw error;
      if (timedOut) return { kind: 'refused', reason: `${displayUrl(request.url)} did not answer within ${seconds}.` };
      return { kind: 'refused', reason: `${displayUrl(request.url)} could not be read: ${networkWords(error)}` };
    } finally {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The address to connect to for `url`, once every address its host resolves to is shown not to
   * be a private one (a name answering public and private both is refused: it could go either way).
   */
  private async checkedAddress(url: URL, request: FetchRequest, signal: AbortSignal): Promise<ResolvedAddress> {
    const host = urlHost(url);
    const family = isIP(host);
    let addresses: ResolvedAddress[];
    if (family !== 0) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
    else {
      try {
        // A resolver that never answers must not outlast the fetch's time limit or its cancel.
        addresses = await untilAborted(this.resolver.lookup(host), signal);
      } catch (error) {
        if (signal.aborted) throw error;
        throw new Refusal(`The host ${host} could not be found (no DNS answer).`);
      }
    }
    if (addresses.length === 0) throw new Refusal(`The host ${host} could not be found (no DNS answer).`);
    if (!request.allowsPrivate(host)) {
      for (const { address } of addresses) {
        const reason = this.blockedReason(address);
        if (reason !== undefined) throw new Refusal(privateWords(host, address, reason));
      }
    }
    return addresses[0]!;
  }

  private open(
    url: URL,
    target: ResolvedAddress,
    request: FetchRequest,
    signal: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const host = urlHost(url);
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      // A ClientRequest of our own with a connection of our own, no agent: nothing between the
      // check and the socket can send the request elsewhere — not VS Code's proxy support (it
      // replaces http.request and its agent in the extension host), not HTTP_PROXY/HTTPS_PROXY
      // (NODE_USE_ENV_PROXY), not a global agent. A proxy would resolve the name itself, after the check.
      const outgoing = new http.ClientRequest({
        _defaultAgent: secure ? https.globalAgent : http.globalAgent,
        protocol: url.protocol,
        hostname: host,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        signal,
        headers: {
          host: url.host,
          'user-agent': 'OpenAgent-web_fetch/1 (+https://openagent.dev)',
          accept: 'text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1',
          'accept-encoding': 'gzip, deflate, br',
        },
        // The connection goes to the address that was checked, whatever a second lookup would answer.
        createConnection: () => connectTo(target, Number(url.port || (secure ? 443 : 80)), secure ? host : undefined),
      } as http.ClientRequestArgs);
      outgoing.on('socket', (socket: Socket) => {
        const check = () => {
          const remote = socket.remoteAddress ?? '';
          const reason = request.allowsPrivate(host) ? undefined : this.blockedReason(remote);
          if (reason !== undefined) outgoing.destroy(new Refusal(privateWords(host, remote, reason)));
        };
        if (socket.remoteAddress) check();
        else socket.once('connect', check);
      });
      outgoing.on('response', resolve);
      outgoing.on('error', reject);
      outgoing.end();
    });
  }
}

/** A socket to `target` itself (TLS for `tlsHost`, the certificate checked against that name). */
function connectTo(target: ResolvedAddress, port: number, tlsHost: string | undefined): Socket {
  const plain = { host: target.address, port, family: target.family };
  if (tlsHost === undefined) return net.connect(plain);
  return tls.connect({
    ...plain,
    // The certificate is checked against the name in the URL (its address when it names one).
    ...(isIP(tlsHost) === 0 ? { servername: tlsHost } : {}),
    ALPNProtocols: ['http/1.1'],
  });
}

/** `work`, or the abort's reason once `signal` aborts, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function privateWords(host: string, address: string, reason: string): string {
  const what = host === address ? `${host} is ${reason}` : `${host} resolves to ${address}, ${reason}`;
  return (
    `Refused: ${what}. web_fetch does not read loopback, private, link-local or metadata addresses ` +
    "unless the user's own policy lists the host in network.fetch_private."
  );
}

function safeResolve(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

function networkWords(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (code === 'ECONNREFUSED') return 'the connection was refused.';
  if (code === 'ECONNRESET') return 'the connection was reset.';
  if (code === 'ENOTFOUND') return 'the host could not be found.';
  if ((typeof code === 'string' && code.startsWith('ERR_TLS')) || /certificate/i.test(String(error)))
    return 'its TLS certificate is not valid.';
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}

interface Body {
  bytes: Uint8Array;
  cut?: 'size' | 'time';
  decoded: boolean;
}

/** The body, decompressed, up to `maxBytes`; what arrived by the deadline when time runs out. */
async function readBody(response: http.IncomingMessage, maxBytes: number, timedOut: () => boolean): Promise<Body> {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  let stream: Readable = response;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(zlib.createGunzip());
  else if (encoding === 'deflate') stream = response.pipe(zlib.createInflate());
  else if (encoding === 'br') stream = response.pipe(zlib.createBrotliDecompress());
  else if (encoding !== '' && encoding !== 'identity') {
    response.destroy();
    // The server's words reach the model outside the untrusted marking: only a plain token is quoted.
    const named = plainToken(encoding, 40);
    throw new Refusal(
      `The page is compressed${named ? ` as "${named}"` : ' in a way it does not name plainly'}, which web_fetch does not read.`,
    );
  }
  const decoded = stream !== response;
  // A failing response ends its decompressor with an error too.
  if (decoded) response.on('error', (error) => stream.destroy(error));
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (total + chunk.length >= maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        response.destroy();
        stream.destroy();
        return { bytes: Buffer.concat(chunks), cut: 'size', decoded };
      }
      chunks.push(chunk);
      total += chunk.length;
    }
  } catch (error) {
    if (timedOut()) return { bytes: Buffer.concat(chunks), cut: 'time', decoded };
    if (decoded && error instanceof Error && /incorrect header|invalid|unexpected end/i.test(error.message))
      throw new Refusal(`The page says it is ${encoding}-compressed but is not: it cannot be read.`);
    throw error;
  }
  // A response cut off by the deadline may end without an error.
  return { bytes: Buffer.concat(chunks), decoded, ...(timedOut() ? { cut: 'time' as const } : {}) };
}
