/**
 * Local HTTP servers for the web_fetch tests (never the internet), and the tool as the editor
 * builds it, with a resolver that answers for made-up names (docs.example) with a local address.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentPolicy } from '../../src/core/policy/agent-policy';
import type { HostResolver, ResolvedAddress } from '../../src/core/web/web-fetch-ports';
import type { AnyTool, ToolOutput } from '../../src/core/tools/tool';
import { webFetchTool } from '../../src/node/web/web-fetch-tool';
import type { HttpPageFetcherDeps } from '../../src/node/web/http-page-fetcher';
import type { FetchLimits } from '../../src/core/web/web-fetch-ports';

export type Route = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface TestServer {
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startServer(routes: Record<string, Route>, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    const route = routes[(request.url ?? '').split('?')[0]!];
    if (route) route(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A resolver with fixed answers per name, each name's answers taken in turn (the last repeats). */
export function scriptedResolver(answers: Record<string, ResolvedAddress[][]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const asked = new Map<string, number>();
  return {
    calls,
    lookup(host) {
      calls.push(host);
      const list = answers[host];
      if (!list) return Promise.reject(Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' }));
      const index = asked.get(host) ?? 0;
      asked.set(host, index + 1);
      return Promise.resolve(list[Math.min(index, list.length - 1)]!);
    },
  };
}

export const local = (address = '127.0.0.1'): ResolvedAddress[] => [{ address, family: 4 }];

export function makeTool(
  policy: AgentPolicy | undefined,
  options: HttpPageFetcherDeps & { limits?: Partial<FetchLimits> } = {},
): AnyTool {
  return webFetchTool(() => policy, options);
}

/** Runs the tool as the loop would: input checked by its schema first. */
export async function run(tool: AnyTool, input: unknown, signal = new AbortController().signal): Promise<ToolOutput> {
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) return { output: parsed.error.issues.map((issue) => issue.message).join('; '), isError: true };
  const result = await tool.execute(parsed.data, { conversationId: 'c', agentId: 'lead', toolCallId: 't', signal });
  return typeof result === 'string' ? { output: result } : result;
}

export const DOCS_PAGE = `<!doctype html><html><head><title>map() – Arrays</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>Array.prototype.map()</h1>
<p>The <code>map()</code> method of Array instances creates a new array populated with the results of
calling a provided function on every element in the calling array. It is a copying method.</p>
<h2>Syntax</h2><pre><code>map(callbackFn)
map(callbackFn, thisArg)</code></pre>
<h2>Parameters</h2><ul><li><code>callbackFn</code>: a function to run for each element.</li>
<li><code>thisArg</code>: a value to use as <code>this</code>.</li></ul>
<p>See also <a href="/docs/filter">filter()</a> for a method that keeps some elements only.
${'The callback is called once per element, in ascending index order. '.repeat(8)}</p>
</article></main><footer>© Example docs</footer><script>alert("tracked")</script></body></html>`;
