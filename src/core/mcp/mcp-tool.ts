/**
 * An MCP server's tool as one of ours (SPEC 2.10): named `mcp__<server>__<tool>`, described
 * with the server's JSON Schema, asking for approval by default, versioned by its definition
 * (so an "Always" approval does not cover a tool whose definition changed), with a timeout, and
 * its result turned into text — images and binary resources are described, never inlined.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { nestingDepth } from '../llm/tool-call-accumulator';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/tool';

/**
 * A value from an MCP server (a tool's input schema, a structured result) nested deeper than
 * this is not taken in: hashing, copying or serializing it would overflow the stack.
 */
export const MAX_MCP_DEPTH = 256;

export function nestedTooDeep(value: unknown): boolean {
  return nestingDepth(value, MAX_MCP_DEPTH) > MAX_MCP_DEPTH;
}

/** What an MCP server says about one of its tools (tools/list). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** One content block of a tools/call result. */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string }
  | { type: string; [key: string]: unknown };

export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Calls a tool on the server; rejects on a timeout, a transport error or a server error. */
export type McpCall = (toolName: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>;

const NAME_PART = /[^a-zA-Z0-9_-]/g;

/** `mcp__<server>__<tool>`, within the 64 characters tool names may have. */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server.replace(NAME_PART, '_')}__${tool.replace(NAME_PART, '_')}`;
  if (name.length <= 64) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 55)}_${hash}`;
}

/** Changes whenever the tool's definition does. */
export function definitionVersion(tool: McpToolInfo): string {
  return createHash('sha256')
    .update(JSON.stringify([tool.name, tool.description ?? '', tool.inputSchema]))
    .digest('hex')
    .slice(0, 12);
}

export function createMcpTool(server: string, info: McpToolInfo, call: McpCall): AnyTool {
  const description = (info.description ?? info.title ?? info.annotations?.title ?? '').trim();
  return {
    name: mcpToolName(server, info.name),
    description: `${description || `The ${info.name} tool`} (from the MCP server "${server}")`,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJsonSchema: objectSchema(info.inputSchema),
    // The server's own claim that a tool only reads is not trusted: every MCP call asks.
    readOnly: false,
    needsApproval: true,
    version: definitionVersion(info),
    summarize: () => `use ${info.name} from the MCP server "${server}"`,
    async execute(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> {
      const result = await call(info.name, input, context.signal);
      return { output: resultText(result), isError: result.isError === true };
    },
  };
}

/** A tools/call result as text for the model. */
export function resultText(result: McpCallResult): string {
  const parts = (result.content ?? []).map(contentText);
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(
      nestedTooDeep(result.structuredContent)
        ? `[structured content nested more than ${MAX_MCP_DEPTH} levels deep — not shown]`
        : JSON.stringify(result.structuredContent),
    );
  return parts.join('\n') || '(The tool returned nothing.)';
}

function contentText(block: McpContent): string {
  switch (block.type) {
    case 'text':
      return String((block as { text: unknown }).text);
    case 'image':
    case 'audio': {
      const { mimeType, data } = block as { mimeType: string; data: string };
      return `[${block.type} ${mimeType}, ${approximateBytes(data)} bytes — not shown]`;
    }
    case 'resource': {
      const { resource } = block as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } };
      if (typeof resource.text === 'string') return `[resource ${resource.uri}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, ${approximateBytes(resource.blob ?? '')} bytes — not shown]`;
    }
    case 'resource_link': {
      const link = block as { uri: string; name?: string };
      return `[resource link ${link.uri}${link.name ? ` (${link.name})` : ''}]`;
    }
    default:
      return `[${block.type} content — not shown]`;
  }
}

function approximateBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}

/** The model APIs want an object schema; a server that sends something else gets one. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest.type === 'object' ? rest : { type: 'object', properties: {} };
}
