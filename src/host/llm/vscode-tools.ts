/**
 * Tools other extensions registered with VS Code (vscode.lm.tools; issue 35, item 2), offered to
 * the model beside ours as `vscode_<name>` and run with vscode.lm.invokeTool.
 *
 * - Names: `vscode_` and the tool's name with every character a model API refuses made `_`, at
 *   most 64; a name another tool already has (a built-in, an OpenAgent API tool, another VS Code
 *   tool whose name came out the same) gets a hash of the original name, so no tool can shadow
 *   another and the same tool keeps its name from one conversation to the next.
 * - Schemas: the tool's JSON Schema (contributes.languageModelTools) as MCP's are taken: an
 *   object schema, never one nested past what our walkers take (a hostile or broken one is left
 *   out and said), made engine-safe for the model by the registry like every tool's.
 * - Traits: nothing is known of what such a tool does, so every call asks unless policy allows
 *   it by name (`tools.allow: [vscode_*]` is possible, never a default); the definition's hash is
 *   its version, so an "Always" does not cover a changed tool.
 * - Results: text parts as they are, prompt-tsx parts as their text, anything else described;
 *   capped here (a 50 MB answer is not held whole) and again, and redacted, like any tool's.
 * - OpenAgent's own tools, should it register any with VS Code, are not offered back to it.
 */
import { createHash } from 'node:crypto';
import type * as vscode from 'vscode';
import { z } from 'zod';
import { untilAborted } from '../../core/abort';
import { nestedTooDeep } from '../../core/mcp/mcp-tool';
import type { AnyTool, ToolContext, ToolOutput } from '../../core/tools/tool';
import { tokenFor, type VscodeLmSurface } from './vscode-lm-surface';

export const VSCODE_TOOL_PREFIX = 'vscode_';
const MAX_NAME = 64;
/** Characters beyond this are not kept from one result (the executor caps further). */
export const MAX_RESULT_CHARS = 1_000_000;

/** One of VS Code's tools as the palette lists it. */
export interface VscodeToolListing {
  /** Its name in VS Code. */
  name: string;
  /** Its name for the model; undefined when it is not offered. */
  offeredAs: string | undefined;
  description: string;
  tags: readonly string[];
  /** The extension that contributes it ("publisher.name"), when one does. */
  extension: string | undefined;
  /** Why it is not offered. */
  leftOut?: string;
}

export interface VscodeToolsOptions {
  /** Our own extension's id: its tools are not offered back to it. */
  ownExtensionId: string;
}

export function sanitizedToolName(name: string): string {
  const cleaned = `${VSCODE_TOOL_PREFIX}${name.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  return cleaned.length <= MAX_NAME ? cleaned : `${cleaned.slice(0, MAX_NAME - 9)}_${hash(name).slice(0, 8)}`;
}

/** A name no other tool has: the clean one, else one with the original name's hash in it. */
function uniqueName(name: string, taken: ReadonlySet<string>): string {
  const clean = sanitizedToolName(name);
  if (!taken.has(clean)) return clean;
  const suffix = `_${hash(name).slice(0, 8)}`;
  const withHash = `${clean.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  if (!taken.has(withHash)) return withHash;
  for (let attempt = 2; ; attempt++) {
    const tail = `_${hash(`${name}\n${attempt}`).slice(0, 8)}`;
    const candidate = `${clean.slice(0, MAX_NAME - tail.length)}${tail}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Which extension contributes each tool name (package.json contributes.languageModelTools). */
export function toolSources(surface: Pick<VscodeLmSurface, 'extensions'>): Map<string, string> {
  const sources = new Map<string, string>();
  for (const extension of surface.extensions.all) {
    const contributed = (extension.packageJSON as { contributes?: { languageModelTools?: unknown } } | undefined)
      ?.contributes?.languageModelTools;
    if (!Array.isArray(contributed)) continue;
    for (const entry of contributed) {
      const name = (entry as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && !sources.has(name)) sources.set(name, extension.id);
    }
  }
  return sources;
}

/** Why a tool's schema cannot be offered, or undefined when it can. */
function schemaProblem(schema: unknown): string | undefined {
  if (schema === undefined) return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return 'its input schema is not an object';
  // Deep or cyclic: walking, hashing or sending it would overflow a stack or never end.
  if (nestedTooDeep(schema)) return 'its input schema is nested too deeply';
  try {
    JSON.stringify(schema);
  } catch {
    return 'its input schema cannot be written as JSON';
  }
  return undefined;
}

/** The model APIs want an object schema; a tool without one (or with another type) gets one. */
function objectSchema(schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null) return { type: 'object', properties: {} };
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest.type === 'object' ? rest : { type: 'object', properties: {} };
}

/**
 * VS Code's tools, each with the name it is offered under or why it is not. `taken`: the names
 * of the tools the conversation already has (built-ins, MCP, API tools).
 */
export function listVscodeTools(
  surface: Pick<VscodeLmSurface, 'lm' | 'extensions'>,
  options: VscodeToolsOptions,
  taken: ReadonlySet<string> = new Set(),
): VscodeToolListing[] {
  const sources = toolSources(surface);
  const names = new Set(taken);
  const listings: VscodeToolListing[] = [];
  let tools: readonly vscode.LanguageModelToolInformation[];
  try {
    tools = surface.lm.tools ?? [];
  } catch {
    return [];
  }
  // Sorted, so the same tools get the same names whatever order VS Code lists them in.
  const sorted = [...tools]
    .filter((tool) => tool && typeof tool.name === 'string')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const tool of sorted) {
    const extension = sources.get(tool.name);
    const base = {
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : '',
      tags: Array.isArray(tool.tags) ? tool.tags.filter((tag) => typeof tag === 'string') : [],
      extension,
    };
    // VS Code's own tools (no extension contributes them: its terminal, tasks, edits,
    // confirmations, sub-agents) are its agent's: they duplicate OpenAgent's tools, run outside
    // its sandbox and checkpoints, and would swell every request by dozens of schemas.
    const leftOut = !extension
      ? "VS Code's own tool (its agent's, not an extension's)"
      : extension.toLowerCase() === options.ownExtensionId.toLowerCase()
        ? "OpenAgent's own tool"
        : !tool.name.trim()
          ? 'it has no name'
          : schemaProblem(tool.inputSchema);
    if (leftOut) {
      listings.push({ ...base, offeredAs: undefined, leftOut });
      continue;
    }
    const offeredAs = uniqueName(tool.name, names);
    names.add(offeredAs);
    listings.push({ ...base, offeredAs });
  }
  return listings;
}

/** VS Code's tools as ours, for a new conversation whose other tools have the names `taken`. */
export function vscodeTools(
  surface: VscodeLmSurface,
  options: VscodeToolsOptions,
  taken: ReadonlySet<string>,
): AnyTool[] {
  const byName = new Map<string, vscode.LanguageModelToolInformation>();
  for (const tool of surface.lm.tools ?? []) if (tool && typeof tool.name === 'string') byName.set(tool.name, tool);
  return listVscodeTools(surface, options, taken).flatMap((listing) => {
    const info = byName.get(listing.name);
    return listing.offeredAs && info ? [adaptTool(surface, info, listing.offeredAs, listing.extension)] : [];
  });
}

function adaptTool(
  surface: VscodeLmSurface,
  info: vscode.LanguageModelToolInformation,
  name: string,
  extension: string | undefined,
): AnyTool {
  const from = extension ? `the extension ${extension}` : 'VS Code';
  const description = (typeof info.description === 'string' ? info.description : '').trim();
  return {
    name,
    description: `${description || `The ${info.name} tool`} (a VS Code tool from ${from})`,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJsonSchema: objectSchema(info.inputSchema),
    // Nothing is known of what it does: it asks, unless policy allows it by name.
    readOnly: false,
    needsApproval: true,
    version: hash(JSON.stringify([info.name, description, info.inputSchema ?? null])).slice(0, 12),
    summarize: () => `use ${info.name} from ${from}`,
    async execute(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> {
      const cancellation = tokenFor(surface, context.signal);
      try {
        // Raced with the Stop: a tool that ignores the cancellation cannot hold the run.
        const result = await untilAborted(
          Promise.resolve(
            surface.lm.invokeTool(
              info.name,
              // No chat request is behind the call: VS Code shows no confirmation of its own.
              { input, toolInvocationToken: undefined },
              cancellation.token,
            ),
          ),
          context.signal,
        );
        return { output: resultText(surface, result) };
      } catch (error) {
        if (context.signal.aborted) throw error;
        return {
          output: `${info.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          isError: true,
        };
      } finally {
        cancellation.dispose();
      }
    },
  };
}

/** A tool's result as text for the model, at most MAX_RESULT_CHARS. */
export function resultText(
  surface: Pick<VscodeLmSurface, 'LanguageModelTextPart' | 'LanguageModelPromptTsxPart'>,
  result: vscode.LanguageModelToolResult | undefined,
): string {
  const content: unknown[] = Array.isArray(result?.content) ? result.content : [];
  const texts: string[] = [];
  let length = 0;
  for (const part of content) {
    if (length >= MAX_RESULT_CHARS) break;
    const text = partText(surface, part);
    texts.push(text);
    length += text.length;
  }
  const joined = texts.join('\n');
  if (joined.length > MAX_RESULT_CHARS)
    return `${joined.slice(0, MAX_RESULT_CHARS)}\n[… the tool's answer was cut at ${MAX_RESULT_CHARS.toLocaleString('en-US')} characters]`;
  return joined || '(The tool returned nothing.)';
}

function partText(
  surface: Pick<VscodeLmSurface, 'LanguageModelTextPart' | 'LanguageModelPromptTsxPart'>,
  part: unknown,
): string {
  if (part instanceof surface.LanguageModelTextPart) return String(part.value);
  if (part instanceof surface.LanguageModelPromptTsxPart) return promptText(part.value);
  const shape = part as { mimeType?: unknown; data?: { byteLength?: unknown } } | null;
  if (shape && typeof shape.mimeType === 'string')
    return `[${shape.mimeType} data, ${Number(shape.data?.byteLength ?? 0)} bytes — not shown]`;
  return '[a part OpenAgent cannot show]';
}

/** The text in a prompt-tsx element tree (its text nodes), walked without recursion. */
function promptText(value: unknown): string {
  const texts: string[] = [];
  const stack: Array<[unknown, number]> = [[value, 0]];
  let visited = 0;
  while (stack.length > 0 && visited < 100_000) {
    const [current, depth] = stack.pop()!;
    visited++;
    if (typeof current === 'string') texts.push(current);
    else if (typeof current === 'object' && current !== null && depth < 256) {
      // A text node ({ type, text }): its text, not its other fields.
      const text = (current as { text?: unknown }).text;
      if (typeof text === 'string') {
        texts.push(text);
        continue;
      }
      const children = Array.isArray(current) ? current : Object.values(current as Record<string, unknown>);
      for (let index = children.length - 1; index >= 0; index--) stack.push([children[index], depth + 1]);
    }
  }
  return texts.join('');
}
