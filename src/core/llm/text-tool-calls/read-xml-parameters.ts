/**
 * Qwen3-Coder's call format: `<function=name>` holding one `<parameter=key>value</parameter>`
 * per argument, inside `<tool_call>` or alone. Values are plain text; the tool's JSON Schema
 * says which are numbers, booleans, arrays or objects, as the model's own chat template reads
 * them. A value whose schema type is unknown stays text (the tool's own validation then says
 * what it wanted).
 */

const PARAMETER = /<parameter=([^>\s]{1,64})>([\s\S]*?)<\/parameter>/g;
const FUNCTION = /^<function=([A-Za-z0-9_.-]{1,100})>([\s\S]*?)(?:<\/function>)?$/;

export type XmlReading = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Whether a tag's body is written with `<parameter=…>` blocks rather than JSON. */
export function isXmlParameters(body: string): boolean {
  return body.trimStart().startsWith('<parameter=');
}

/** `<function=name>…</function>` inside a `<tool_call>`: its name and the text of its parameters. */
export function readXmlFunction(body: string): { name: string; parameters: string } | undefined {
  const match = FUNCTION.exec(body.trim());
  return match ? { name: match[1]!, parameters: match[2]! } : undefined;
}

export function readXmlParameters(body: string, schema: Record<string, unknown> | undefined): XmlReading {
  const value: Record<string, unknown> = {};
  let outside = '';
  let last = 0;
  for (const match of body.matchAll(PARAMETER)) {
    outside += body.slice(last, match.index);
    last = match.index + match[0].length;
    const key = match[1]!;
    // defineProperty: a key named __proto__ is a property like any other, not the prototype.
    Object.defineProperty(value, key, {
      value: typed(withoutEdgeNewlines(match[2]!), propertyTypes(schema, key)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  outside += body.slice(last);
  if (outside.trim() !== '')
    return { ok: false, error: `there is text outside the <parameter=…> blocks: ${outside.trim().slice(0, 80)}` };
  return { ok: true, value };
}

/** The model writes `<parameter=path>\nsrc/a.ts\n</parameter>`: the value is between the newlines. */
function withoutEdgeNewlines(raw: string): string {
  return raw.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

function propertyTypes(schema: Record<string, unknown> | undefined, key: string): string[] {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null || !Object.hasOwn(properties, key)) return [];
  const type = (properties as Record<string, { type?: unknown }>)[key]?.type;
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t) => typeof t === 'string') : [];
}

function typed(raw: string, types: string[]): unknown {
  if (types.length === 0 || types.includes('string')) return raw;
  try {
    return JSON.parse(raw.trim());
  } catch {
    return raw;
  }
}
