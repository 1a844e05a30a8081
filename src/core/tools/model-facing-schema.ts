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

/** Keywords engines compile into repetitions or regular expressions. */
const MOVED_TO_DESCRIPTION: Record<string, (value: unknown) => string | undefined> = {
  minLength: (value) => (Number(value) > 0 ? `at least ${value} characters` : undefined),
  maxLength: (value) => `at most ${value} characters`,
  minItems: (value) => (Number(value) > 0 ? `at least ${value} items` : undefined),
  maxItems: (value) => `at most ${value} items`,
  minProperties: (value) => (Number(value) > 0 ? `at least ${value} properties` : undefined),
  maxProperties: (value) => `at most ${value} properties`,
  uniqueItems: (value) => (value === true ? 'items unique' : undefined),
  pattern: (value) => `matching the pattern ${String(value)}`,
  format: (value) => `format: ${String(value)}`,
};

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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function simplify(schema: unknown, depth: number): unknown {
  if (!isObject(schema)) return schema;
  if (depth > MAX_DEPTH) return {};
  const result: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    // Own keys only; a "__proto__" key from parsed JSON stays data, never a prototype.
    const describe = MOVED_TO_DESCRIPTION[key];
    if (describe && Object.hasOwn(MOVED_TO_DESCRIPTION, key)) {
      const note = describe(value);
      if (note) notes.push(note);
      continue;
    }
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
  if (notes.length > 0) {
    const description = typeof result.description === 'string' ? result.description.trimEnd() : '';
    const said = `(${notes.join(', ')})`;
    result.description = description ? `${description} ${said}` : said;
  }
  return result;
}
