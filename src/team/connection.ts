/**
 * The connection to the team database: a small pool with short connection and statement
 * timeouts (a database that is away must never hang an editor), and the translation of what
 * `pg` throws into the port's errors. No message ever carries the password: URLs are shown
 * with it masked, and any error text is scrubbed of it.
 */
import { Pool } from 'pg';
import { TeamUnreachableError } from '../core/team/team-store';

export interface TeamPoolOptions {
  /** Connections at most (default 4: one editor or CLI makes few calls at once). */
  max?: number;
  /** Default 5 s. */
  connectionTimeoutMillis?: number;
  /** Default 15 s: the server cancels a statement running longer. */
  statementTimeoutMillis?: number;
}

/**
 * A pool for the URL. TLS follows the URL (`sslmode=require`, `verify-full`…, which pg
 * reads from the connection string; note pg treats `require` as `verify-full` unless the URL
 * also says `uselibpqcompat=true`).
 */
export function createTeamPool(url: string, options: TeamPoolOptions = {}): Pool {
  const statementTimeout = options.statementTimeoutMillis ?? 15_000;
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 4,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeout,
    // The client gives up a little after the server would have: a server that stopped
    // answering altogether (a network partition) fails the call instead of hanging it.
    query_timeout: statementTimeout + 5_000,
    idle_in_transaction_session_timeout: statementTimeout,
    keepAlive: true,
    application_name: 'openagent',
  });
  // An idle connection the server dropped (a restart) is reported here; the pool discards it
  // and the next query opens a new one. Without a listener the process would crash.
  pool.on('error', () => undefined);
  return pool;
}

/** The team database refused an operation this login may not do (e.g. a member setting the policy). */
export class TeamPermissionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TeamPermissionError';
  }
}

/** The URL as it may be shown: the password masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the team database (its URL could not be read)';
  }
}

/** Where the database is, for messages: user@host:port/database (no password). */
export function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    return `${user}${parsed.hostname}:${parsed.port || '5432'}/${database}`;
  } catch {
    return 'the team database';
  }
}

/** The password in the URL (raw and decoded), to scrub from any text. */
export function secretsOf(url: string): string[] {
  try {
    const password = new URL(url).password;
    if (!password) return [];
    return [...new Set([password, safeDecode(password)])].filter((secret) => secret.length > 0);
  } catch {
    return [];
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** SQLSTATEs that mean "not now, not here": shutdown, too many connections, statement timeout. */
const AWAY_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
/** The server answered but would not let this login in. */
const REFUSED_STATES = new Set(['28P01', '28000', '3D000']);
const AWAY_MESSAGES =
  /timeout|Connection terminated|connection error|not queryable|shutting down|starting up|server does not support SSL|socket hang up|Connection ended/i;

/**
 * `content`: the database refused what was sent (a data exception, class 22, or a broken
 * integrity constraint, class 23): sending the same again fails again.
 */
export type TeamErrorKind = 'unreachable' | 'refused' | 'permission' | 'no-schema' | 'content' | 'other';

/** What kind of failure `error` is (as thrown by pg or Node's sockets). */
export function classifyTeamError(error: unknown): TeamErrorKind {
  if (error instanceof TeamUnreachableError) return 'unreachable';
  if (error instanceof TeamPermissionError) return 'permission';
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof code === 'string' ? code : '';
  if (text === '42501') return 'permission';
  if (text === '42P01' || text === '42883') return 'no-schema';
  if (REFUSED_STATES.has(text)) return 'refused';
  if (NETWORK_CODES.has(text) || text.startsWith('08') || AWAY_STATES.has(text)) return 'unreachable';
  if (text.startsWith('ERR_TLS') || text.includes('CERT')) return 'refused';
  if (/^2[23][0-9A-Z]{3}$/.test(text)) return 'content';
  if (typeof message === 'string' && AWAY_MESSAGES.test(message)) return 'unreachable';
  return 'other';
}

/** The port's error for `error` (others are passed through, scrubbed of the password). */
export function toTeamError(error: unknown, target: string, secrets: string[] = []): Error {
  if (error instanceof TeamUnreachableError || error instanceof TeamPermissionError) return error;
  const reason = scrub(messageOf(error), secrets);
  switch (classifyTeamError(error)) {
    case 'unreachable':
      return new TeamUnreachableError(`The team database at ${target} is unreachable: ${reason}`, { cause: error });
    case 'refused':
      return new TeamUnreachableError(`The team database at ${target} refused the connection: ${reason}`, {
        cause: error,
      });
    case 'no-schema':
      return new TeamUnreachableError(
        `The team database at ${target} has no (or an older) team schema: run \`openagent team init\` as its admin (${reason}).`,
        { cause: error },
      );
    case 'permission':
      return new TeamPermissionError(`The team database at ${target} refused: ${reason}`, { cause: error });
    default:
      if (error instanceof Error) {
        error.message = scrub(error.message, secrets);
        return error;
      }
      return new Error(reason);
  }
}

/** Runs `work`, turning what it throws into the port's errors. */
export async function withTeamErrors<T>(target: string, work: () => Promise<T>, secrets: string[] = []): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toTeamError(error, target, secrets);
  }
}

export function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length)
    return error.errors.map((each: unknown) => messageOf(each)).join('; ');
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

function scrub(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join('***');
  return result;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
