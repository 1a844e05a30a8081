/**
 * The building blocks of the parsers generated from the protocol's zod schemas
 * (src/protocol/generated/): each gives zod 4's verdict and output for the one feature it
 * stands for, with no schema objects, issues or locales. A parser returns the parsed value (a
 * fresh copy of every object and array, keys in the schema's order, as zod builds them) or
 * FAIL. How zod behaves here was read from its source (v4/core/schemas.js, checks.js, util.js)
 * and is held to zod itself by test/unit/protocol/host-message-parsers.test.ts.
 */

export const FAIL: unique symbol = Symbol('fail');
/** A parser: the value as the schema outputs it, or FAIL. */
export type Parse = (value: unknown) => unknown;
/** A test of a value the schema outputs unchanged (strings, numbers, literals…). */
export type Test = (value: unknown) => boolean;
type Obj = Record<string, unknown>;
/** Reads one key of an object being parsed into its output; false when the key does not fit. */
export type Field = (input: Obj, output: Obj) => boolean;

/** zod's isObject: anything of type object but null and arrays. */
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** zod's isPlainObject, which z.record() asks for: no class instances (a Date, a Map). */
function isPlainObject(value: unknown): value is Obj {
  if (!isObject(value)) return false;
  const ctor: unknown = value.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const prototype: unknown = ctor.prototype;
  return isObject(prototype) && Object.prototype.hasOwnProperty.call(prototype, 'isPrototypeOf');
}

/** String lengths as zod counts them: in code points, a surrogate pair being one. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

export const maxChars = (text: string, max: number): boolean => text.length <= max || codePoints(text) <= max;
export const minChars = (text: string, min: number): boolean =>
  text.length >= min && (text.length >= 2 * min || codePoints(text) >= min);

/** A value the schema passes through unchanged. */
export const leaf =
  (test: Test): Parse =>
  (value) =>
    test(value) ? value : FAIL;

/** One of a set of literal values (z.enum). */
export function oneOf(values: readonly unknown[]): Test {
  const set = new Set(values);
  return (value) => set.has(value);
}

export const optional =
  (parse: Parse): Parse =>
  (value) =>
    value === undefined ? value : parse(value);

export const nullable =
  (parse: Parse): Parse =>
  (value) =>
    value === null ? value : parse(value);

/**
 * How a key may be missing: "optional" (z.optional: absent is fine and stays absent),
 * "required" (its schema refuses undefined), "present" (its schema takes undefined, as
 * z.unknown() does, but zod still wants the key there).
 */
export type Presence = 'optional' | 'required' | 'present';

/** Reads `key` (own or inherited, as zod's `input[key]` does) with `parse`. */
export function field(key: string, parse: Parse, presence: Presence): Field {
  return (input, output) => {
    if (presence !== 'required' && !(key in input)) return presence === 'optional';
    const parsed = parse(input[key]);
    if (parsed === FAIL) return false;
    output[key] = parsed;
    return true;
  };
}

/** An object: its fields in the schema's order; with `strictKeys`, no key beyond them (z.strictObject). */
export function object(fields: readonly Field[], strictKeys?: readonly string[]): Parse {
  const allowed = strictKeys && new Set(strictKeys);
  return (value) => {
    if (!isObject(value)) return FAIL;
    // zod looks for unknown keys with for...in: inherited enumerable keys count, an own __proto__ too.
    if (allowed) for (const key in value) if (!allowed.has(key)) return FAIL;
    const output: Obj = {};
    for (const read of fields) if (!read(value, output)) return FAIL;
    return output;
  };
}

/** An array, its length within bounds; holes read as undefined, as zod fills a fresh array. */
export function array(element: Parse, min = 0, max = Infinity): Parse {
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return FAIL;
    const output: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const parsed = element(value[i]);
      if (parsed === FAIL) return FAIL;
      output[i] = parsed;
    }
    return output;
  };
}

/** z.record(z.string(), …): own enumerable keys; __proto__ is skipped and a symbol key refused, as zod does. */
export function record(entry: Parse): Parse {
  return (value) => {
    if (!isPlainObject(value)) return FAIL;
    const output: Obj = {};
    for (const key of Reflect.ownKeys(value)) {
      if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue;
      if (typeof key !== 'string') return FAIL;
      const parsed = entry(value[key]);
      if (parsed === FAIL) return FAIL;
      output[key] = parsed;
    }
    return output;
  };
}

/** z.union: the first option that fits. */
export function union(options: readonly Parse[]): Parse {
  return (value) => {
    for (const option of options) {
      const parsed = option(value);
      if (parsed !== FAIL) return parsed;
    }
    return FAIL;
  };
}

/** z.discriminatedUnion: the option its discriminator's value names (a Map, so no key is inherited). */
export function tagged(discriminator: string, options: ReadonlyArray<readonly [unknown, Parse]>): Parse {
  const byValue = new Map(options);
  return (value) => {
    if (!isObject(value)) return FAIL;
    const option = byValue.get(value[discriminator]);
    return option ? option(value) : FAIL;
  };
}

/** The parsed value, or undefined when it does not fit (what the webviews want). */
export function parseWith<T>(parse: Parse, raw: unknown): T | undefined {
  const parsed = parse(raw);
  return parsed === FAIL ? undefined : (parsed as T);
}
