import type { LlmClient, LlmRequest, LlmStreamPart } from '../../../../src/core/llm/llm-client';

export const baseRequest: Omit<LlmRequest, 'signal'> = {
  model: 'fake-model',
  system: 'You are a test.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
  tools: [
    {
      name: 'read_file',
      description: 'Read a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ],
  maxOutputTokens: 1024,
};

/** Streams a request and returns every part, or the parts so far and the error. */
export async function collectParts(
  client: LlmClient,
  request: Partial<LlmRequest> = {},
): Promise<{ parts: LlmStreamPart[]; error: unknown }> {
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of client.stream({ ...baseRequest, ...request })) parts.push(part);
    return { parts, error: undefined };
  } catch (error) {
    return { parts, error };
  }
}

export function textOf(parts: LlmStreamPart[]): string {
  return parts.map((part) => (part.type === 'text_delta' ? part.text : '')).join('');
}
