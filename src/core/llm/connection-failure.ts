/**
 * Whether a failed model call is the network's fault, and which fault, the same way for every
 * provider. Two sources raise these errors:
 * - before the answer starts, the SDKs wrap every network failure in their own classes
 *   (`APIConnectionError`, `APIConnectionTimeoutError`), recognised here with `instanceof`
 *   — not by name: openai 6.x leaves `name` as "Error", and a bundler may rename classes;
 * - once the answer streams, the body is read through fetch, whose failures reach us
 *   unwrapped: a `TypeError("terminated")` caused by the socket's error.
 * Either way the socket's own code (ECONNREFUSED, ENOTFOUND, ERR_SSL_…, UND_ERR_SOCKET) sits
 * at the end of the `cause` chain and says what happened.
 */
import { isSdkError } from './sdk-modules';

export type ConnectionProblem = 'refused' | 'dns' | 'tls' | 'lost' | 'timeout' | 'unreachable';

export interface ConnectionFailure {
  problem: ConnectionProblem;
  /** The socket's code, when one was given: "ECONNREFUSED", "ENOTFOUND", "ERR_SSL_…". */
  code: string | undefined;
}

const PROBLEM_OF_CODE: Record<string, ConnectionProblem> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  ECONNRESET: 'lost',
  ECONNABORTED: 'lost',
  EPIPE: 'lost',
  UND_ERR_SOCKET: 'lost',
  UND_ERR_CLOSED: 'lost',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
};

/**
 * TLS failures: OpenSSL's (ERR_SSL_WRONG_VERSION_NUMBER when https meets a plain-http server),
 * Node's (ERR_TLS_CERT_ALTNAME_INVALID) and certificate verification's
 * (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, …).
 */
function isTlsCode(code: string): boolean {
  return /^ERR_(SSL|TLS)_|CERT|_SIGNATURE$|^UNABLE_TO_/.test(code);
}

function problemOfCode(code: string): ConnectionProblem | undefined {
  return PROBLEM_OF_CODE[code] ?? (isTlsCode(code) ? 'tls' : undefined);
}

/** The errors down the `cause` chain, the error itself first. */
function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current = error; current instanceof Error && chain.length < 8;) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The first socket code down the chain that names a network problem. */
function socketCode(chain: Error[]): { code: string; problem: ConnectionProblem } | undefined {
  for (const link of chain) {
    const code = (link as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const problem = problemOfCode(code);
    if (problem) return { code, problem };
  }
  return undefined;
}

/** How the response body fails when the server goes away mid-answer (fetch/undici). */
function isBodyTermination(error: Error): boolean {
  return error instanceof TypeError && error.message === 'terminated';
}

/** The network problem behind a failed call, or undefined when the network is not to blame. */
export function connectionFailure(error: unknown): ConnectionFailure | undefined {
  const chain = causeChain(error);
  const first = chain[0];
  if (!first) return undefined;
  if (isSdkError(first, 'APIConnectionTimeoutError')) return { problem: 'timeout', code: socketCode(chain)?.code };
  const fromSocket = socketCode(chain);
  if (isSdkError(first, 'APIConnectionError')) return fromSocket ?? { problem: 'unreachable', code: undefined };
  if (fromSocket) return fromSocket;
  if (isBodyTermination(first)) return { problem: 'lost', code: undefined };
  return undefined;
}

/**
 * One sentence (two for the ones with a likely cause) naming the server and its address; the
 * address is the one tried, so a typo in the settings shows.
 */
export function describeConnectionFailure(failure: ConnectionFailure, server: string): string {
  const code = failure.code ? ` (${failure.code})` : '';
  switch (failure.problem) {
    case 'timeout':
      return `The request timed out at ${server}${code}.`;
    case 'lost':
      return `The connection was lost with ${server}${code}.`;
    case 'dns':
      return `Could not reach ${server}${code}: its host name was not found.`;
    case 'tls':
      return `Could not set up a secure connection to ${server}${code}. ${tlsHint(failure.code)}`;
    default:
      return `Could not reach ${server}${code}.`;
  }
}

function tlsHint(code: string | undefined): string {
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG')
    return 'The server does not seem to speak https: should the address start with http://?';
  if (code && /CERT|SIGNATURE|^UNABLE_TO_/.test(code))
    return "The server's certificate is not trusted (self-signed, expired or for another name).";
  return "Check the address and the server's https setup.";
}
