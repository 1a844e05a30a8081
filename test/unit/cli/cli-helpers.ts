/** What the CLI tests share: the flags that point the CLI at the fake model server, a clean environment, request readers. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FakeModelServer, RecordedRequest } from '../../fixtures/fake-model-server/server';

/** The flags for the fake server's OpenAI-compatible endpoint and a store of its own. */
export function cliArgs(server: FakeModelServer, store: string): string[] {
  return [
    '--store',
    store,
    '--provider',
    'openai-compatible',
    '--base-url',
    server.openAiBaseUrl,
    '--model',
    'fake-model',
  ];
}

/** No keys or settings from the machine running the tests; a home of its own. */
export function cleanEnv(): Record<string, string | undefined> {
  return {
    HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-cli-home-')),
    ANTHROPIC_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    OPENAGENT_API_KEY: undefined,
    OPENAGENT_PROVIDER: undefined,
    OPENAGENT_MODEL: undefined,
    OPENAGENT_BASE_URL: undefined,
    OPENAGENT_STORE: undefined,
    OPENAGENT_PRESET: undefined,
  };
}

export function tempFolder(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `openagent-cli-${prefix}-`));
}

interface WireMessage {
  role: string;
  content: unknown;
}

export function requestBody(request: RecordedRequest | undefined): {
  model?: string;
  messages: WireMessage[];
  tools?: Array<{ function?: { name?: string } }>;
} {
  const body = (request?.body ?? {}) as { model?: string; messages?: WireMessage[] };
  return { ...body, messages: body.messages ?? [] };
}

/** A message's text, whichever shape its content has (string or text parts). */
export function textOf(message: WireMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

/** The names of the tools a request offered the model. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  return (requestBody(request).tools ?? []).map((tool) => tool.function?.name ?? '');
}

/** Polls until `condition` holds (for things outside the screen: server requests, files). */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
