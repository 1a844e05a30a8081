/**
 * Values to hold a generated parser against its zod schema: valid ones drawn from the schema
 * (lengths at their limits, in UTF-16 units and in code points), and the same values broken
 * one place at a time — a wrong type, a missing or extra key, a prototype key, a limit crossed,
 * a hole in an array, an object with an unusual prototype. Seeded, so a failure reproduces.
 */
import type { z } from 'zod';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type CheckDef = z.core.$ZodCheckDef & { minimum?: number; maximum?: number; value?: number; inclusive?: boolean };

/** A small seeded generator (mulberry32). */
export class Random {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

const checksOf = (def: Def) => ((def.checks ?? []) as z.core.$ZodCheck[]).map((check) => check._zod.def as CheckDef);

/** Characters of one code point each: ASCII, a two-unit emoji, a lone surrogate (one point to zod). */
const PIECES = ['a', 'Z', ' ', 'é', '😀', '\ud800', '\udc00', '"', '\n'];

/** A string of `points` code points as zod counts them. */
function text(random: Random, points: number): string {
  let out = '';
  for (let i = 0; i < points; i++) {
    let piece = random.pick(PIECES);
    // A lone high surrogate followed by a low one would pair up into one point.
    if (piece === '\udc00' && out.endsWith('\ud800')) piece = 'b';
    out += piece;
  }
  if (out.endsWith('\ud800') && random.chance(0.5)) out = `${out.slice(0, -1)}c`;
  return out;
}

function lengthLimits(def: Def, cap: number): { min: number; max: number } {
  let min = 0;
  let max = Infinity;
  for (const check of checksOf(def)) {
    if (check.check === 'min_length') min = check.minimum!;
    if (check.check === 'max_length') max = check.maximum!;
  }
  return { min, max: Math.min(max, Math.max(min, cap)) };
}

function numberSample(random: Random, def: Def): number {
  let low = -1e6;
  let high = 1e6;
  let integer = false;
  for (const check of checksOf(def)) {
    if (check.check === 'number_format') integer = true;
    if (check.check === 'greater_than') low = check.inclusive ? check.value! : check.value! + (integer ? 1 : 1e-9);
    if (check.check === 'less_than') high = check.inclusive ? check.value! : check.value! - (integer ? 1 : 1e-9);
  }
  if (random.chance(0.2)) return random.pick([low, high].filter((edge) => Math.abs(edge) < 1e6 || !integer));
  const value = low + random.next() * Math.min(high - low, 1e4);
  return integer ? Math.min(high, Math.ceil(value)) : value;
}

/** Anything JSON can carry, a few levels deep. */
export function anyValue(random: Random, depth = 0): unknown {
  const kind = random.int(0, depth > 2 ? 4 : 6);
  if (kind === 0) return null;
  if (kind === 1) return random.chance(0.5);
  if (kind === 2) return random.int(-100, 100);
  if (kind === 3) return text(random, random.int(0, 6));
  if (kind === 4) return undefined;
  if (kind === 5) return Array.from({ length: random.int(0, 3) }, () => anyValue(random, depth + 1));
  return Object.fromEntries(
    Array.from({ length: random.int(0, 3) }, (_, index) => [`k${index}`, anyValue(random, depth + 1)]),
  );
}

/** A value `schema` accepts. */
export function validSample(schema: Schema, random: Random): unknown {
  const def = schema._zod.def as Def;
  switch (def.type) {
    case 'string': {
      const { min, max } = lengthLimits(def, 12);
      return text(random, random.chance(0.3) ? random.pick([min, max]) : random.int(min, max));
    }
    case 'number':
      return numberSample(random, def);
    case 'boolean':
      return random.chance(0.5);
    case 'unknown':
    case 'any':
      return anyValue(random);
    case 'literal':
      return random.pick((def as unknown as { values: unknown[] }).values);
    case 'enum':
      return random.pick([...schema._zod.values!]);
    case 'optional':
      return random.chance(0.2) ? undefined : validSample((def as unknown as { innerType: Schema }).innerType, random);
    case 'nullable':
      return random.chance(0.2) ? null : validSample((def as unknown as { innerType: Schema }).innerType, random);
    case 'array': {
      const { min, max } = lengthLimits(def, 3);
      const element = (def as unknown as { element: Schema }).element;
      return Array.from({ length: random.int(min, max) }, () => validSample(element, random));
    }
    case 'record': {
      const value = (def as unknown as { valueType: Schema }).valueType;
      return Object.fromEntries(
        Array.from({ length: random.int(0, 3) }, (_, index) => [`key${index}`, validSample(value, random)]),
      );
    }
    case 'union':
      return validSample(random.pick((def as unknown as { options: Schema[] }).options), random);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries((def as unknown as { shape: Record<string, Schema> }).shape)) {
        // An optional key is left out now and then (absent, not undefined).
        if (field._zod.optin === 'optional' && random.chance(0.3)) continue;
        out[key] = validSample(field, random);
      }
      return out;
    }
    default:
      throw new Error(`no samples for z.${def.type}`);
  }
}

interface Slot {
  parent: Record<string | number, unknown> | unknown[] | undefined;
  key: string | number | undefined;
  value: unknown;
}

/** Every place in `root` a mutation can hit (the root itself included). */
function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: undefined, key: undefined, value: root }];
  const walk = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      out.push({
        parent: value as Record<string, unknown>,
        key: Array.isArray(value) ? Number(key) : key,
        value: child,
      });
      walk(child);
    }
  };
  walk(root);
  return out;
}

const clone = <T>(value: T): T => structuredClone(value);

/** Wrong values of every type, with the edges numbers and strings have. */
const STRANGE: Array<() => unknown> = [
  () => undefined,
  () => null,
  () => Number.NaN,
  () => Infinity,
  () => -Infinity,
  () => -0,
  () => 1.5,
  () => 2 ** 53,
  () => -(2 ** 53),
  () => '',
  () => '😀',
  () => true,
  () => [],
  () => ({}),
  () => [undefined],
  () => new Date(0),
  () => new Map([['a', 1]]),
  () => Object.create(null) as object,
  () => 12,
  () => 'text',
];

/** `sample` broken in one place. */
export function mutate(sample: unknown, random: Random): unknown {
  const root = { value: clone(sample) };
  const targets = slots(root.value).map((slot) => (slot.parent ? slot : { ...slot, parent: root, key: 'value' }));
  const slot = random.pick(targets);
  const parent = slot.parent as Record<string | number, unknown>;
  const key = slot.key!;
  const value = slot.value;
  switch (random.int(0, 9)) {
    case 0:
      parent[key] = random.pick(STRANGE)();
      break;
    case 1:
      if (!Array.isArray(parent)) delete parent[key];
      else parent.length = Math.max(0, parent.length - 1);
      break;
    case 2:
      if (isRecord(value)) value[random.pick(['extra', 'constructor', 'toString', 'prototype'])] = 1;
      break;
    case 3:
      // An own __proto__ key, as JSON.parse (and a structured clone of it) makes one.
      if (isRecord(value)) {
        const rest = JSON.stringify(value).slice(1);
        parent[key] = JSON.parse(`{"__proto__":{"polluted":true}${rest === '}' ? '' : ','}${rest}`);
      }
      break;
    case 4:
      if (typeof value === 'string') parent[key] = value + random.pick(['x', '😀', '\ud800']);
      else if (typeof value === 'number') parent[key] = value + random.pick([1, -1, 0.5]);
      break;
    case 5:
      // Limits crossed in code points but not units, and the other way round.
      if (typeof value === 'string') parent[key] = random.chance(0.5) ? value.replace(/[a-zé ]/, '😀') : value.slice(1);
      break;
    case 6:
      if (Array.isArray(value)) value.length += 1;
      else if (isRecord(value)) parent[key] = Object.assign(Object.create({ inherited: 1, type: 'chat_reset' }), value);
      break;
    case 7:
      if (isRecord(value)) parent[key] = Object.assign(Object.create(null) as object, value);
      break;
    case 8:
      if (isRecord(value)) (value as Record<symbol, unknown>)[Symbol('key')] = 1;
      else if (Array.isArray(value)) value.push(random.pick(STRANGE)());
      break;
    default:
      if (isRecord(value)) Object.defineProperty(value, 'hidden', { value: 1, enumerable: false });
      else parent[key] = anyValue(random);
  }
  return root.value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
