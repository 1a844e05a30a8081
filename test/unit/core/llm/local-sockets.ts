/**
 * Real local sockets that fail the way networks do, each counting what reached it: a port
 * nothing listens on, servers that hang up before or after the answer starts, one that never
 * answers, and https addresses that cannot be set up (plain http behind them, or a
 * self-signed certificate).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface LocalServer {
  /** http://127.0.0.1:port (https:// for the TLS ones). */
  url: string;
  port: number;
  /** HTTP requests whose headers arrived. */
  requests: number;
  /** TCP connections accepted (a TLS handshake that fails never makes a request). */
  connections: number;
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

async function listen(server: Server, scheme: 'http' | 'https', port = 0): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const local: LocalServer = {
    url: '',
    port: 0,
    requests: 0,
    connections: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket: Socket) => {
    local.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', () => local.requests++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  local.port = (server.address() as AddressInfo).port;
  local.url = `${scheme}://127.0.0.1:${local.port}`;
  return local;
}

/** An http server running `handler` once each request's body has arrived. */
export function serveHttp(handler: Handler, port?: number): Promise<LocalServer> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => handler(request, response));
  });
  return listen(server, 'http', port);
}

/** A port that was just free: nothing listens there, so connecting is refused. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An https address with a plain http server behind it: the TLS handshake cannot succeed. */
export async function plainHttpBehindHttps(): Promise<LocalServer> {
  const local = await serveHttp((_request, response) => response.end('plain http'));
  local.url = local.url.replace(/^http:/, 'https:');
  return local;
}

/**
 * An https server with a freshly made self-signed certificate, or undefined when this machine
 * has no openssl to make one.
 */
export async function selfSignedHttps(handler: Handler): Promise<LocalServer | undefined> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-tls-'));
  const key = path.join(folder, 'key.pem');
  const cert = path.join(folder, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    fs.rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (request, response) => {
    request.resume();
    request.on('end', () => handler(request, response));
  });
  fs.rmSync(folder, { recursive: true, force: true });
  return listen(server, 'https');
}

/** Resolves when `condition` holds, polling; fails after a generous deadline. */
export async function eventually(condition: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > deadlineMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
