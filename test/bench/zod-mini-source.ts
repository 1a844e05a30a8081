/**
 * The protocol's zod schemas written out in zod/mini's functional style (z.optional(x),
 * .check(z.maxLength(n))…), as a hand port to zod/mini would write them: one const per schema
 * shared by several (the event ids every event carries). The benchmark bundles this to weigh
 * zod/mini against the generated parsers on the same schemas.
 */
import type { z } from 'zod';

type Schema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };
type CheckDef = { check: string; minimum?: number; maximum?: number; value?: number; inclusive?: boolean };

const checks = (def: Def) =>
  ((def.checks ?? []) as z.core.$ZodCheck[]).map((check) => check._zod.def as unknown as CheckDef);

/** zod/mini's spelling of a length or range check. */
function miniCheck(check: CheckDef): string | undefined {
  if (check.check === 'min_length') return `z.minLength(${check.minimum})`;
  if (check.check === 'max_length') return `z.maxLength(${check.maximum})`;
  if (check.check === 'greater_than') return `z.${check.inclusive ? 'gte' : 'gt'}(${check.value})`;
  if (check.check === 'less_than') return `z.${check.inclusive ? 'lte' : 'lt'}(${check.value})`;
  if (check.check === 'number_format') return undefined;
  throw new Error(`zod/mini source: no spelling for ${check.check}`);
}

class MiniWriter {
  readonly lines: string[] = [];
  private readonly names = new Map<Schema, string>();
  private readonly uses = new Map<Schema, number>();

  /** Counts how often each schema is used, to give shared ones a const. */
  count(schema: Schema): void {
    const seen = this.uses.get(schema) ?? 0;
    this.uses.set(schema, seen + 1);
    if (seen === 0) for (const child of children(schema)) this.count(child);
  }

  expression(schema: Schema): string {
    const named = this.names.get(schema);
    if (named) return named;
    const text = this.spell(schema);
    if ((this.uses.get(schema) ?? 0) < 2) return text;
    const name = `s${this.names.size}`;
    this.lines.push(`const ${name} = ${text};`);
    this.names.set(schema, name);
    return name;
  }

  private spell(schema: Schema): string {
    const def = schema._zod.def as unknown as Def;
    const list = checks(def);
    const integer = list.some((check) => check.check === 'number_format');
    const checked = (base: string) => {
      const spelled = list.map(miniCheck).filter((check): check is string => check !== undefined);
      return spelled.length ? `${base}.check(${spelled.join(', ')})` : base;
    };
    const of = (key: string) => this.expression(def[key] as Schema);
    switch (def.type) {
      case 'string':
      case 'boolean':
      case 'unknown':
      case 'never':
        return checked(`z.${def.type}()`);
      case 'number':
        return checked(integer ? 'z.int()' : 'z.number()');
      case 'literal':
        return `z.literal(${JSON.stringify((def.values as unknown[])[0])})`;
      case 'enum':
        return `z.enum(${JSON.stringify(Object.values(def.entries as object))})`;
      case 'optional':
      case 'nullable':
        return `z.${def.type}(${of('innerType')})`;
      case 'array':
        return checked(`z.array(${of('element')})`);
      case 'record':
        return `z.record(${of('keyType')}, ${of('valueType')})`;
      case 'object': {
        const shape = Object.entries(def.shape as Record<string, Schema>).map(
          ([key, field]) => `${JSON.stringify(key)}: ${this.expression(field)}`,
        );
        const kind = (def.catchall as Schema | undefined)?._zod.def.type === 'never' ? 'strictObject' : 'object';
        return `z.${kind}({ ${shape.join(', ')} })`;
      }
      case 'union': {
        const options = (def.options as Schema[]).map((option) => this.expression(option)).join(', ');
        return def.discriminator
          ? `z.discriminatedUnion(${JSON.stringify(def.discriminator)}, [${options}])`
          : `z.union([${options}])`;
      }
      default:
        throw new Error(`zod/mini source: no spelling for z.${def.type}`);
    }
  }
}

function children(schema: Schema): Schema[] {
  const def = schema._zod.def as unknown as Def;
  const pick = (...keys: string[]) => keys.map((key) => def[key]).filter(Boolean) as Schema[];
  if (def.type === 'object') return Object.values(def.shape as Record<string, Schema>);
  if (def.type === 'union') return def.options as Schema[];
  return pick('innerType', 'element', 'keyType', 'valueType');
}

/** A module exporting `parse<name>(raw)` for each schema, built with zod/mini. */
export function zodMiniModule(entries: Array<{ name: string; schema: Schema }>): string {
  const writer = new MiniWriter();
  for (const { schema } of entries) writer.count(schema);
  const exports = entries.map(({ name, schema }) => {
    const expression = writer.expression(schema);
    return `const ${name}Schema = ${expression};\nexport const parse${name} = (raw: unknown) => { const result = ${name}Schema.safeParse(raw); return result.success ? result.data : undefined; };`;
  });
  return ["import * as z from 'zod/mini';", ...writer.lines, ...exports].join('\n');
}
