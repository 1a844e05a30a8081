/**
 * A throwaway PostgreSQL server for the team store's tests: the real engine from the system's
 * packages (Debian's `postgresql`, /usr/lib/postgresql/<version>/bin), never a mock. Each call
 * to startPostgres() runs initdb into a fresh temp folder and starts the server on a free
 * loopback port with its socket in that folder, so tests never touch a system cluster.
 *
 * PostgreSQL refuses to run as root: when the tests run as root the server runs as the
 * unprivileged `postgres` user (Debian's package creates it), owning the temp folder.
 * Logins over TCP need a password (scram-sha-256), as in a real deployment.
 *
 * With no PostgreSQL installed, requirePostgres() fails the test under CI (CI=true) and skips
 * it loudly elsewhere: a missing package must never pass silently where it counts.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client, Pool } from 'pg';
import { initTeamSchema } from '../../src/team/migrations';
import { PATIENCE_MS } from './patience';

const run = promisify(execFile);

export const ADMIN_USER = 'openagent_admin';
export const DATABASE = 'openagent_team';

export interface PostgresServer {
  /** The admin's URL (the database's owner, with password). */
  url: string;
  port: number;
  adminPassword: string;
  dataDir: string;
  /** A LOGIN role with a password, member of `inRole` (created NOLOGIN when missing); its URL. */
  createMember(name: string, inRole?: string): Promise<string>;
  /** Runs one statement as the admin. */
  query(sql: string, values?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** A clean shutdown (connections are terminated, like a restart by the operator). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** An immediate shutdown (like a crash): no checkpoint, clients cut off. */
  kill(): Promise<void>;
  /** Stops the server and removes its folder. */
  dispose(): Promise<void>;
}

/** The newest installed PostgreSQL's bin folder, or undefined. OPENAGENT_PG_BIN overrides. */
export function findPostgresBin(): string | undefined {
  const override = process.env.OPENAGENT_PG_BIN;
  if (override) return fs.existsSync(path.join(override, 'pg_ctl')) ? override : undefined;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((name) => /^\d+(\.\d+)?$/.test(name) && fs.existsSync(path.join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

/**
 * For a mocha `before` hook: the bin folder, or a failure under CI / a loud skip elsewhere
 * when PostgreSQL is not installed.
 */
export function requirePostgres(context: Mocha.Context): string {
  const bin = findPostgresBin();
  if (bin) return bin;
  const message =
    'PostgreSQL is not installed (no pg_ctl under /usr/lib/postgresql/*/bin): install the "postgresql" package (.ci/run does).';
  if (process.env.CI) throw new Error(message);
  console.warn(`\n  !!! SKIPPING the team database tests: ${message}\n`);
  context.skip();
}

const servers = new Set<{ dataDir: string; bin: string; asUser: string | undefined; base: string }>();
let exitHookInstalled = false;

/** Starts a fresh server; stop it with dispose() (it is also stopped when the process exits). */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (see requirePostgres).');
  const asUser = process.getuid?.() === 0 ? 'postgres' : undefined;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-pg-'));
  const dataDir = path.join(base, 'data');
  const socketDir = path.join(base, 'socket');
  fs.mkdirSync(socketDir);
  const adminPassword = randomBytes(12).toString('hex');
  const passwordFile = path.join(base, 'admin-password');
  fs.writeFileSync(passwordFile, `${adminPassword}\n`, { mode: 0o600 });
  if (asUser) chownTree(base, asUser);

  const record = { dataDir, bin, asUser, base };
  servers.add(record);
  installExitHook();

  const tool = (name: string, args: string[]) => runAs(asUser, path.join(bin, name), args);
  await tool('initdb', [
    '-D',
    dataDir,
    '-U',
    ADMIN_USER,
    `--pwfile=${passwordFile}`,
    '--auth-local=scram-sha-256',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  fs.rmSync(passwordFile);

  let port = 0;
  const logFile = path.join(base, 'server.log');
  const start = async () => {
    // -W: pg_ctl does not wait; pg_isready below does, on a condition with a generous deadline.
    const options = [
      '-c listen_addresses=127.0.0.1',
      `-p ${port}`,
      `-k ${socketDir}`,
      // A throwaway cluster: durability is not what is tested here, and fsync is slow on CI.
      '-c fsync=off',
      '-c max_connections=200',
    ].join(' ');
    await tool('pg_ctl', ['start', '-W', '-D', dataDir, '-l', logFile, '-o', options]);
    await waitReady(bin, port, logFile);
  };
  // A port found free can be taken before the server binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      await tool('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => undefined);
      if (attempt >= 3) throw error;
    }
  }

  const url = `postgres://${ADMIN_USER}:${adminPassword}@127.0.0.1:${port}/${DATABASE}`;
  const adminQuery = async (sql: string, values?: unknown[], database = DATABASE) => {
    const client = new Client({ connectionString: url.replace(/\/[^/]*$/, `/${database}`) });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  };
  await adminQuery(`CREATE DATABASE ${DATABASE}`, undefined, 'postgres');

  const stopWith = async (mode: 'fast' | 'immediate') => {
    await tool('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', String(Math.ceil(PATIENCE_MS / 1000))]);
  };
  return {
    url,
    port,
    adminPassword,
    dataDir,
    query: (sql, values) => adminQuery(sql, values),
    async createMember(name, inRole = 'openagent_member') {
      const password = randomBytes(9).toString('hex');
      const role = quoteIdent(name);
      const group = quoteIdent(inRole);
      await adminQuery(`DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${quoteLiteral(inRole)}) THEN
          CREATE ROLE ${group} NOLOGIN;
        END IF;
      END $$`);
      await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD ${quoteLiteral(password)} IN ROLE ${group}`);
      return `postgres://${encodeURIComponent(name)}:${password}@127.0.0.1:${port}/${DATABASE}`;
    },
    stop: () => stopWith('fast'),
    start,
    async restart() {
      await stopWith('fast');
      await start();
    },
    kill: () => stopWith('immediate'),
    async dispose() {
      // Forgotten by the exit hook only once gone: a process exiting meanwhile still cleans up.
      await tool('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => undefined);
      fs.rmSync(base, { recursive: true, force: true });
      servers.delete(record);
    },
  };
}

/** Runs a PostgreSQL tool, as `user` when given (the tests run as root). */
async function runAs(user: string | undefined, command: string, args: string[]): Promise<string> {
  const [file, fileArgs] = user ? ['runuser', ['-u', user, '--', command, ...args]] : [command, args];
  try {
    const { stdout } = await run(file, fileArgs, { cwd: os.tmpdir(), timeout: PATIENCE_MS });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${path.basename(command)} failed: ${failed.stderr || failed.stdout || failed.message}`, {
      cause: error,
    });
  }
}

/** Waits until the server accepts connections (pg_isready), or fails with the server's log. */
async function waitReady(bin: string, port: number, logFile: string): Promise<void> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const ready = spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '5']);
    if (ready.status === 0) return;
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
    // A server that gave up (port taken, bad option) will never be ready: say why now.
    if (/FATAL|could not bind|could not create/.test(log) && !/ready to accept connections/.test(log))
      throw new Error(`PostgreSQL did not start on port ${port}:\n${log.slice(-2000)}`);
    if (Date.now() > deadline)
      throw new Error(`PostgreSQL was not ready on port ${port} after ${PATIENCE_MS} ms:\n${log.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

function chownTree(folder: string, user: string): void {
  const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
  const walk = (entry: string) => {
    fs.chownSync(entry, uid, gid);
    if (fs.statSync(entry).isDirectory()) for (const name of fs.readdirSync(entry)) walk(path.join(entry, name));
  };
  walk(folder);
}

/** Servers still running when the process exits (a test crashed, mocha --exit) are stopped. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const server of servers) {
      const pgCtl = path.join(server.bin, 'pg_ctl');
      const args = ['stop', '-D', server.dataDir, '-m', 'immediate', '-w'];
      if (server.asUser) spawnSync('runuser', ['-u', server.asUser, '--', pgCtl, ...args]);
      else spawnSync(pgCtl, args);
      fs.rmSync(server.base, { recursive: true, force: true });
    }
  });
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Creates the team schema and the members' role in the server at `url` (as `openagent team init` does). */
export async function initTeamDatabase(url: string): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    await initTeamSchema(pool);
  } finally {
    await pool.end();
  }
}
