/**
 * The JSON Schema a tool shows the model, made from the one it is validated against.
 *
 * Where limits are enforced, decided once: the tool layer validates every call against the
 * tool's full schema (zod, or an MCP server's own JSON Schema); what is sent to the model is a
 * schema every engine can compile. Local engines turn tool schemas into sampling grammars, and
 * some keywords make them give up or blow up: llama.cpp refuses a bounded repetition from 2,000
 * up ("failed to parse grammar", every request fails), and a `pattern` or `format` is compiled
 * into grammar rules too. So length, count and pattern constraints are taken out of the schema
 * and said in the description instead; types, enums, required properties and number bounds
 * stay. A call that breaks a constraint gets a validation error the model can read and fix.
 */

/**
 * Keywords engines compile into repetitions or regular expressions, and how each is said. The
 * words are short on purpose: every tool schema rides on every request, so "1-200 chars" is
 * said instead of "at least 1 characters, at most 200 characters".
 */
const MOVED_TO_DESCRIPTION: Record<string, true> = {
  minLength: true,
  maxLength: true,
  minItems: true,
  maxItems: true,
  minProperties: true,
  maxProperties: true,
  uniqueItems: true,
  pattern: true,
  format: true,
};

/** A lower and an upper bound as one phrase: "1-200 chars", "max 50 items", "non-empty". */
function bounds(minimum: unknown, maximum: unknown, unit: string): string | undefined {
  const low = Number(minimum) > 0 ? String(minimum) : undefined;
  const high = maximum === undefined ? undefined : String(maximum);
  if (low !== undefined && high !== undefined)
    return low === high ? `exactly ${low} ${unit}` : `${low}-${high} ${unit}`;
  if (high !== undefined) return `max ${high} ${unit}`;
  if (low === undefined) return undefined;
  return Number(low) === 1 ? 'non-empty' : `min ${low} ${unit}`;
}

/** What the keywords taken out of one schema said, in the order a reader wants them. */
function describeMoved(moved: Record<string, unknown>): string[] {
  const notes = [
    bounds(moved.minLength, moved.maxLength, 'chars'),
    bounds(moved.minItems, moved.maxItems, 'items'),
    bounds(moved.minProperties, moved.maxProperties, 'properties'),
    moved.uniqueItems === true ? 'unique items' : undefined,
    moved.pattern === undefined ? undefined : `pattern ${String(moved.pattern)}`,
    moved.format === undefined ? undefined : `format ${String(moved.format)}`,
  ];
  return notes.filter((note): note is string => note !== undefined);
}

/** Keywords whose value is one schema. */
const SCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYS = ['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas'];

/** Deeper than this, a schema is shown as "anything" (a hostile MCP server can nest without end). */
const MAX_DEPTH = 32;

export function modelFacingSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return simplify(schema, 0) as Record<string, unknown>;
}

/**
 * zod's `.int()` writes the end of the safe integers as a bound ("maximum": 9007199254740991):
 * no bound at all to a model, and eight tokens on every request, so it is left out.
 */
function isEndOfIntegers(key: string, value: unknown): boolean {
  return (
    (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function simplify(schema: unknown, depth: number): unknown {
  if (!isObject(schema)) return schema;
  if (depth > MAX_DEPTH) return {};
  const result: Record<string, unknown> = {};
  const moved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Own keys only; a "__proto__" key from parsed JSON stays data, never a prototype.
    if (Object.hasOwn(MOVED_TO_DESCRIPTION, key)) {
      moved[key] = value;
      continue;
    }
    if (isEndOfIntegers(key, value)) continue;
    if (SCHEMA_KEYS.includes(key)) result[key] = simplify(value, depth + 1);
    else if (SCHEMA_LIST_KEYS.includes(key) && Array.isArray(value))
      result[key] = value.map((item) => simplify(item, depth + 1));
    else if (SCHEMA_MAP_KEYS.includes(key) && isObject(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(value))
        Object.defineProperty(map, name, {
          value: simplify(item, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      result[key] = map;
    } else Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const notes = describeMoved(moved);
  if (notes.length > 0) {
    const description = typeof result.description === 'string' ? result.description.trimEnd() : '';
    const said = `(${notes.join(', ')})`;
    result.description = description ? `${description} ${said}` : said;
  }
  return result;
}
