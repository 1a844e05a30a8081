/**
 * web_fetch as the editor and the CLI offer it: the core tool over the node fetcher, the
 * Markdown conversion loaded on first use, and the policy in force (its `network` section:
 * merge-policy.ts keeps `fetch_private` to what the user's own policy grants).
 */
import type { AgentPolicy } from '../../core/policy/agent-policy';
import { lazyModule } from '../../core/lazy-module';
import { createWebFetchTool, type WebFetchDeps } from '../../core/tools/builtin/web-fetch';
import type { AnyTool } from '../../core/tools/tool';
import { HttpPageFetcher, type HttpPageFetcherDeps } from './http-page-fetcher';
import type * as HtmlToMarkdownModule from './html-to-markdown';

const markdownModule = lazyModule(() => require('./html-to-markdown') as typeof HtmlToMarkdownModule);

export function webFetchTool(
  policy: () => AgentPolicy | undefined,
  options: HttpPageFetcherDeps & Pick<WebFetchDeps, 'limits'> = {},
): AnyTool {
  return createWebFetchTool({
    fetcher: new HttpPageFetcher(options),
    converter: () => markdownModule().htmlToMarkdown,
    privateHosts: () => policy()?.network?.fetch_private ?? [],
    allowedHosts: () => policy()?.network?.fetch_allow ?? [],
    ...(options.limits ? { limits: options.limits } : {}),
  });
}
