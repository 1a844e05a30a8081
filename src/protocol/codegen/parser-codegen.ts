/**
 * Turns zod schemas into plain TypeScript parsers built from src/protocol/parser-runtime.ts:
 * the same verdicts and the same output as `schema.safeParse` (zod 4's semantics), without zod.
 * The webviews check what the host posts with these instead of bundling zod's 450 KB; the
 * schemas in src/protocol/messages.ts stay the one source of truth.
 *
 * Only the zod features the host → webview messages use are supported. Anything else (a
 * transform, a refinement, a string format, a default…) makes generation throw, naming where,
 * so a schema never gets a parser that quietly accepts more than zod would.
 */
import { z } from 'zod';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type CheckDef = z.core.$ZodCheckDef & {
  minimum?: number;
  maximum?: number;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
};

/** One exported parser: `parse<name>(raw): <typeName> | undefined`. */
export interface ParserEntry {
  name: string;
  schema: Schema;
  /** The TypeScript type the parser returns, imported from `typesFrom`. */
  typeName: string;
}

export interface ParserModule {
  /** Where the generated module imports the types from (relative to it), e.g. "../messages". */
  typesFrom: string;
  /** Where it imports the building blocks from, e.g. "../parser-runtime". */
  runtimeFrom: string;
  /** The command that regenerates the file, for its header. */
  command: string;
  entries: ParserEntry[];
}

export class UnsupportedSchema extends Error {}

/**
 * What a schema's definition may hold for the generator to know all it does: a string format
 * (z.email()), a coercion, a number format built as a schema (z.int()) carry more keys and are
 * refused rather than read as a plain string or number.
 */
const PLAIN_DEF_KEYS: Record<string, readonly string[]> = {
  string: ['checks'],
  number: ['checks'],
  array: ['element', 'checks'],
  boolean: [],
  unknown: [],
  any: [],
  never: [],
  literal: ['values'],
  enum: ['entries'],
  optional: ['innerType'],
  nullable: ['innerType'],
  record: ['keyType', 'valueType'],
  object: ['shape', 'catchall'],
  union: ['options', 'discriminator', 'inclusive'],
};

/** The condition zod gives each length check it makes; any other is a conditional check we refuse. */
const LENGTH_CHECK_WHEN = (z.string().max(1)._zod.def.checks![0]!._zod.def as CheckDef).when;

function plainDef(schema: Schema, where: string): Def {
  const def = schema._zod.def as Def;
  const allowed = PLAIN_DEF_KEYS[def.type];
  if (!allowed) throw new UnsupportedSchema(`${where}: z.${def.type}`);
  for (const [key, value] of Object.entries(def))
    if (key !== 'type' && value !== undefined && !allowed.includes(key))
      throw new UnsupportedSchema(`${where}: z.${def.type} with ${key}`);
  const checks = (def.checks ?? []) as z.core.$ZodCheck[];
  if (checks.length > 0 && !['string', 'number', 'array'].includes(def.type))
    throw new UnsupportedSchema(`${where}: checks on z.${def.type}`);
  return def;
}

const checksOf = (def: Def) => ((def.checks ?? []) as z.core.$ZodCheck[]).map((check) => check._zod.def as CheckDef);

function literal(value: unknown, where: string): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' && !Number.isFinite(value)) throw new UnsupportedSchema(`${where}: literal ${value}`);
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return JSON.stringify(value);
  throw new UnsupportedSchema(`${where}: a ${typeof value} literal`);
}

/** Emits one module: a const per distinct parser and field, children before the parsers using them. */
class Emitter {
  private readonly declarations: string[] = [];
  private readonly byText = new Map<string, string>();
  private readonly bySchema = new Map<Schema, string>();

  output(): string {
    return this.declarations.join('\n');
  }

  /** The const holding `text` (declared once however often it is asked for). */
  private declare(text: string): string {
    let name = this.byText.get(text);
    if (!name) {
      name = `p${this.byText.size}`;
      this.byText.set(text, name);
      // Pure: a bundle keeps only the parsers its webview imports.
      this.declarations.push(`const ${name} = /* @__PURE__ */ ${text};`);
    }
    return name;
  }

  /** The name of a parser of `schema`. */
  parser(schema: Schema, where: string): string {
    const known = this.bySchema.get(schema);
    if (known) return known;
    const test = this.test(schema, where);
    const alone = test && /^p\d+\(x\)$/.exec(test);
    const constant = test === 'true' || test === 'false';
    const text = alone
      ? `leaf(${test!.slice(0, -3)})`
      : test !== undefined
        ? `leaf((${constant ? '' : 'x'}) => ${test})`
        : undefined;
    const name = this.declare(text ?? this.compound(schema, where));
    this.bySchema.set(schema, name);
    return name;
  }

  /** A test of `x` for schemas that output their input unchanged; undefined for the others. */
  private test(schema: Schema, where: string): string | undefined {
    const def = plainDef(schema, where);
    switch (def.type) {
      case 'string':
        return [`typeof x === 'string'`, ...checksOf(def).map((check) => lengthTest(check, 'x', where, true))].join(
          ' && ',
        );
      case 'number':
        return numberTest(checksOf(def), where);
      case 'boolean':
        return `typeof x === 'boolean'`;
      case 'unknown':
      case 'any':
        return 'true';
      case 'never':
        return 'false';
      case 'literal':
        return this.oneOf((def as unknown as { values: unknown[] }).values, where);
      case 'enum':
        return this.oneOf([...schema._zod.values!], where);
      case 'optional':
      case 'nullable': {
        const inner = innerOf(schema, def, where);
        const test = this.test(inner, where);
        return test === undefined ? undefined : `x === ${def.type === 'optional' ? 'undefined' : 'null'} || ${test}`;
      }
      case 'union': {
        if (def.discriminator !== undefined) return undefined;
        if (def.inclusive === false) throw new UnsupportedSchema(`${where}: z.xor`);
        const options = (def as unknown as { options: Schema[] }).options;
        const tests = options.map((option, index) => this.test(option, `${where}|${index}`));
        return tests.every((test) => test !== undefined) ? tests.map((test) => `(${test})`).join(' || ') : undefined;
      }
      default:
        return undefined;
    }
  }

  /** One of some literal values: compared in place when few, else a set (SameValueZero, as zod's). */
  private oneOf(values: readonly unknown[], where: string): string {
    if (values.length === 0) return 'false';
    const items = values.map((value) => literal(value, where));
    if (items.length <= 3) return items.map((item) => `x === ${item}`).join(' || ');
    return `${this.declare(`oneOf([${items.join(', ')}])`)}(x)`;
  }

  /** The parser expression of schemas that build a new value: objects, arrays, records, unions. */
  private compound(schema: Schema, where: string): string {
    const def = plainDef(schema, where);
    switch (def.type) {
      case 'object':
        return this.object(def as unknown as z.core.$ZodObjectDef, where);
      case 'array': {
        const element = this.parser((def as unknown as { element: Schema }).element, `${where}[]`);
        let min = 0;
        let max = 'Infinity';
        for (const check of checksOf(def)) {
          lengthTest(check, 'x', where, false);
          if (check.check === 'min_length') min = check.minimum!;
          else max = String(check.maximum);
        }
        return `array(${[element, ...(max !== 'Infinity' ? [min, max] : min ? [min] : [])].join(', ')})`;
      }
      case 'record': {
        const keyDef = plainDef((def as unknown as z.core.$ZodRecordDef).keyType, `${where}{key}`);
        if (keyDef.type !== 'string' || checksOf(keyDef).length > 0)
          throw new UnsupportedSchema(`${where}: a record keyed other than by z.string()`);
        return `record(${this.parser((def as unknown as z.core.$ZodRecordDef).valueType, `${where}{}`)})`;
      }
      case 'union':
        return this.union(def as unknown as z.core.$ZodDiscriminatedUnionDef, where);
      case 'optional':
      case 'nullable':
        return `${def.type}(${this.parser(innerOf(schema, def, where), where)})`;
      default:
        throw new UnsupportedSchema(`${where}: z.${def.type}`);
    }
  }

  private object(def: z.core.$ZodObjectDef, where: string): string {
    const shape = def.shape as Record<string, Schema>;
    const keys = Object.keys(shape);
    if (Object.getOwnPropertySymbols(shape).length > 0) throw new UnsupportedSchema(`${where}: symbol keys`);
    if (keys.includes('__proto__')) throw new UnsupportedSchema(`${where}: a __proto__ key`);
    const catchall = def.catchall?._zod.def.type;
    if (catchall !== undefined && catchall !== 'never') throw new UnsupportedSchema(`${where}: catchall ${catchall}`);
    const fields = keys.map((key) => {
      const schema = shape[key]!;
      const at = `${where}.${key}`;
      const { optin, optout } = schema._zod;
      let presence: string;
      if (optin === 'optional' && optout === 'optional') presence = 'optional';
      else if (optin !== undefined) throw new UnsupportedSchema(`${at}: optin ${optin}, optout ${optout}`);
      // A required key must be there even when its schema takes undefined (z.unknown()).
      else presence = (schema as z.ZodType).safeParse(undefined).success ? 'present' : 'required';
      return this.declare(`field(${JSON.stringify(key)}, ${this.parser(schema, at)}, '${presence}')`);
    });
    const strict = catchall === 'never' ? `, [${keys.map((key) => JSON.stringify(key)).join(', ')}]` : '';
    return `object([${fields.join(', ')}]${strict})`;
  }

  private union(def: z.core.$ZodDiscriminatedUnionDef, where: string): string {
    const options = def.options.map((option, index) => {
      if (def.discriminator === undefined) return this.parser(option, `${where}|${index}`);
      const values = (option._zod as { propValues?: Record<string, Set<unknown>> }).propValues?.[def.discriminator];
      if (!values || values.has(undefined)) throw new UnsupportedSchema(`${where}|${index}: an optional discriminator`);
      const at = `${where}<${[...values].join('|')}>`;
      const parser = this.parser(option, at);
      return [...values].map((value) => `[${literal(value, at)}, ${parser}]`).join(', ');
    });
    if (def.discriminator === undefined) return `union([${options.join(', ')}])`;
    if (def.unionFallback) throw new UnsupportedSchema(`${where}: unionFallback`);
    return `tagged(${JSON.stringify(def.discriminator)}, [${options.join(', ')}])`;
  }
}

function innerOf(schema: Schema, def: Def, where: string): Schema {
  const inner = (def as unknown as { innerType: Schema }).innerType;
  if (def.type === 'optional' && inner._zod.optin === 'defaulted')
    throw new UnsupportedSchema(`${where}: optional of a default`);
  return inner;
}

function lengthTest(check: CheckDef, value: string, where: string, text: boolean): string {
  if (check.when !== LENGTH_CHECK_WHEN) throw new UnsupportedSchema(`${where}: a conditional check`);
  if (check.check === 'max_length')
    return text ? `maxChars(${value}, ${check.maximum})` : `${value}.length <= ${check.maximum}`;
  if (check.check === 'min_length')
    return text ? `minChars(${value}, ${check.minimum})` : `${value}.length >= ${check.minimum}`;
  throw new UnsupportedSchema(`${where}: check ${check.check}`);
}

function numberTest(checks: CheckDef[], where: string): string {
  const tests: string[] = [];
  let integer = false;
  for (const check of checks) {
    if (check.when !== undefined) throw new UnsupportedSchema(`${where}: a conditional check`);
    if (check.check === 'number_format' && check.format === 'safeint') integer = true;
    else if ((check.check === 'greater_than' || check.check === 'less_than') && typeof check.value === 'number')
      tests.push(`x ${check.check === 'greater_than' ? '>' : '<'}${check.inclusive ? '=' : ''} ${check.value}`);
    else throw new UnsupportedSchema(`${where}: number check ${check.check} ${check.format ?? ''}`);
  }
  // z.number() refuses NaN and ±Infinity; .int() wants a safe integer (which is finite).
  const base = `typeof x === 'number' && ${integer ? 'Number.isSafeInteger(x)' : 'Number.isFinite(x)'}`;
  return [base, ...tests].join(' && ');
}

const RUNTIME_NAMES = [
  'array',
  'field',
  'leaf',
  'maxChars',
  'minChars',
  'nullable',
  'object',
  'oneOf',
  'optional',
  'parseWith',
  'record',
  'tagged',
  'union',
];

/** The generated module's source (unformatted TypeScript). */
export function generateParserModule(module: ParserModule): string {
  const emitter = new Emitter();
  const exports = module.entries.map(({ name, schema, typeName }) => {
    const parser = emitter.parser(schema, name);
    return [
      `/** Parses like the zod schema's \`safeParse\`: the value (a copy) when it fits, else undefined. */`,
      `export const parse${name} = (raw: unknown) => parseWith<${typeName}>(${parser}, raw);`,
    ].join('\n');
  });
  const body = emitter.output();
  // Only what the module uses, or lint would flag the rest.
  const used = RUNTIME_NAMES.filter((name) => new RegExp(`\\b${name}\\(`).test(body) || name === 'parseWith');
  const types = [...new Set(module.entries.map((entry) => entry.typeName))].sort();
  return [
    `// Generated by \`${module.command}\` from the zod schemas: do not edit.`,
    "// Each parser gives the verdict and the output of the schema's safeParse, without zod.",
    `import type { ${types.join(', ')} } from '${module.typesFrom}';`,
    `import { ${used.join(', ')} } from '${module.runtimeFrom}';`,
    '',
    body,
    '',
    ...exports,
    '',
  ].join('\n');
}
