/**
 * The webviews check the host's messages with parsers generated from the protocol's zod
 * schemas. These tests hold them to zod itself: on valid, broken and hostile values the parser
 * accepts exactly what `safeParse` accepts and returns the same value, keys in the same order.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { z } from 'zod';
import { HOST_MESSAGE_PARSERS } from '../../../src/protocol/codegen/host-message-entries';
import { GENERATED_PARSERS_DIR, hostMessageParserFiles } from '../../../src/protocol/codegen/host-message-parsers';
import { generateParserModule, UnsupportedSchema } from '../../../src/protocol/codegen/parser-codegen';
import { hostToPanelSchema, hostToWebviewSchema } from '../../../src/protocol/messages';
import { parseChatUpdate } from '../../../src/protocol/generated/chat-update-parser';
import { parsePanelEvents } from '../../../src/protocol/generated/panel-events-parser';
import { parsePanelMessage } from '../../../src/protocol/generated/panel-message-parser';
import { parseHostToPanel } from '../../../src/protocol/panel-message-check';
import { mutate, Random, validSample } from './zod-samples';

type Parser = (raw: unknown) => unknown;

/** Generates and loads parsers for `schemas` (the generated TypeScript, bundled as the build does). */
function compileParsers(schemas: Record<string, z.ZodType>): Record<string, Parser> {
  const source = generateParserModule({
    typesFrom: '../messages',
    runtimeFrom: '../parser-runtime',
    command: 'test',
    entries: Object.entries(schemas).map(([name, schema]) => ({ name, schema, typeName: 'unknown' })),
  });
  const { outputFiles } = esbuild.buildSync({
    stdin: { contents: source, loader: 'ts', resolveDir: GENERATED_PARSERS_DIR },
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
  });
  const module = { exports: {} as Record<string, Parser> };
  new Function('module', 'exports', outputFiles[0]!.text)(module, module.exports);
  return Object.fromEntries(Object.keys(schemas).map((name) => [name, module.exports[`parse${name}`]!]));
}

/** The parsed values are equal, and so is the order of every object's keys (it shows in JSON). */
function assertSameOutput(actual: unknown, expected: unknown, path = '$'): void {
  // z.unknown() hands values through as they are (a 100,000-level object, compared by identity).
  if (Object.is(actual, expected)) return;
  assert.deepStrictEqual(actual, expected, path);
  if (typeof expected !== 'object' || expected === null) return;
  assert.deepEqual(Object.keys(actual as object), Object.keys(expected), `key order at ${path}`);
  for (const key of Object.keys(expected))
    assertSameOutput(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
}

const describeValue = (value: unknown) => {
  try {
    return JSON.stringify(value)?.slice(0, 300) ?? String(value);
  } catch {
    return String(value);
  }
};

/** Holds `parse` to `schema` on `value`, in zod's compiled and interpreted modes alike. */
function assertAgrees(schema: z.ZodType, parse: Parser, value: unknown): boolean {
  const parsed = parse(value);
  for (const jitless of [false, true]) {
    const expected = schema.safeParse(value, { jitless } as z.core.ParseContext<z.core.$ZodIssue>);
    assert.equal(parsed !== undefined, expected.success, `verdict (jitless ${jitless}) on ${describeValue(value)}`);
    if (expected.success) assertSameOutput(parsed, expected.data);
  }
  return parsed !== undefined;
}

/** Valid samples of `schema` and each broken once: returns how many of each verdict it saw. */
function fuzz(schema: z.ZodType, parse: Parser, seed: number, rounds: number): { accepted: number; refused: number } {
  const random = new Random(seed);
  const seen = { accepted: 0, refused: 0 };
  for (let round = 0; round < rounds; round++) {
    const sample = validSample(schema, random);
    assert.ok(assertAgrees(schema, parse, sample), `a valid sample was refused: ${describeValue(sample)}`);
    seen.accepted++;
    for (let broken = 0; broken < 4; broken++) {
      if (assertAgrees(schema, parse, mutate(sample, random))) seen.accepted++;
      else seen.refused++;
    }
  }
  return seen;
}

describe('parsers generated from the protocol schemas', () => {
  it('are the ones in the repository (npm run schemas regenerates them)', async () => {
    const generated = await hostMessageParserFiles();
    assert.deepEqual(
      fs.readdirSync(GENERATED_PARSERS_DIR).sort(),
      generated.map(({ file }) => path.basename(file)).sort(),
      'src/protocol/generated/ holds other files: run "npm run schemas"',
    );
    for (const { file, source } of generated)
      assert.equal(fs.readFileSync(file, 'utf8'), source, `${file} is stale: run "npm run schemas"`);
  });

  const shipped: Record<string, Parser> = {
    ChatUpdate: parseChatUpdate,
    PanelEvents: parsePanelEvents,
    PanelMessage: parsePanelMessage,
  };
  for (const entry of HOST_MESSAGE_PARSERS) {
    it(`${entry.name}: agrees with zod on valid and broken messages`, () => {
      const seen = fuzz(entry.schema as z.ZodType, shipped[entry.name]!, 23, 1_500);
      // Both verdicts must be well represented, or the comparison proves little.
      assert.ok(seen.refused > 1_000 && seen.accepted > 1_500, JSON.stringify(seen));
    });
  }

  it("the panel's two parsers, chosen by type, agree with zod on the whole host → panel protocol", () => {
    const seen = fuzz(hostToPanelSchema, parseHostToPanel, 29, 2_000);
    assert.ok(seen.refused > 1_000 && seen.accepted > 1_000, JSON.stringify(seen));
  });

  it('the whole host → chat protocol (event batches included) agrees with zod', () => {
    const { HostToWebview } = compileParsers({ HostToWebview: hostToWebviewSchema });
    const seen = fuzz(hostToWebviewSchema, HostToWebview!, 7, 2_000);
    assert.ok(seen.refused > 1_000, JSON.stringify(seen));
  });

  it('agrees with zod on hostile messages: huge, deeply nested, prototype keys, odd objects', () => {
    const schema = hostToWebviewSchema;
    const { HostToWebview: parse } = compileParsers({ HostToWebview: schema });
    const event = {
      conversationId: 'c1',
      agentId: 'lead',
      seq: 1,
      time: 1,
      type: 'tool_call',
      toolCallId: 't1',
      toolName: 'bash',
      input: {},
    };
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { next: deep };
    const hostile: unknown[] = [
      { type: 'chat_notice', level: 'info', text: 'x'.repeat(10_000_000), actions: [] },
      { type: 'composer_insert', text: 'x'.repeat(200_001) },
      { type: 'composer_insert', text: '😀'.repeat(200_000) },
      { type: 'agent_events', events: Array.from({ length: 100_000 }, (_, seq) => ({ ...event, seq })) },
      { type: 'agent_events', events: [{ ...event, input: deep }] },
      { type: 'agent_events', events: [deep] },
      { type: 'composer_insert', text: deep },
      deep,
      JSON.parse('{"type":"chat_reset","__proto__":{"isAdmin":true}}'),
      JSON.parse('{"type":"agent_events","events":[],"__proto__":null}'),
      JSON.parse(`{"type":"agent_events","events":[${JSON.stringify({ ...event, __proto__: { x: 1 } })}]}`),
      { type: 'agent_events', events: [JSON.parse(`{"__proto__":1,${JSON.stringify(event).slice(1)}`)] },
      Object.create({ type: 'chat_reset' }),
      Object.assign(Object.create({ extra: 1 }), { type: 'chat_reset' }),
      Object.assign(Object.create(null), { type: 'chat_reset' }),
      { type: 'chat_reset', constructor: 1 },
      { type: 'chat_reset', toString: 'x', hasOwnProperty: 'y' },
      { type: 'queue_state', items: Array.from({ length: 1_000 }, (_, index) => ({ id: `q${index}`, text: 't' })) },
      { type: 'prompt_result', requestId: 'r'.repeat(64) },
      { type: 'prompt_result', requestId: '😀'.repeat(64) },
      { type: 'prompt_result', requestId: '😀'.repeat(65) },
      { type: 'prompt_result', requestId: '\ud800'.repeat(65) },
      { type: 'agent_events', events: new Array(3) },
      { type: 'agent_events', events: { length: 0 } },
      ['chat_reset'],
      'chat_reset',
      new Date(),
      null,
      undefined,
      Symbol('x'),
      () => ({ type: 'chat_reset' }),
    ];
    for (const value of hostile) assertAgrees(schema, parse!, value);
  });
});

describe('the parser generator', () => {
  it('follows zod on each feature it supports', () => {
    const schemas = {
      Text: z.strictObject({ short: z.string().max(2), long: z.string().min(3), any: z.unknown() }),
      Loose: z.object({ count: z.number().int().positive().max(10), ratio: z.number().min(0).max(1) }),
      Maybe: z.object({
        optional: z.string().optional(),
        nullable: z.number().nullable(),
        both: z.boolean().nullable().optional(),
        nested: z.strictObject({ a: z.literal(1) }).optional(),
      }),
      Lists: z.strictObject({
        tags: z.array(z.string()).max(2),
        some: z.array(z.unknown()).min(1),
        table: z.record(z.string(), z.number()),
        loose: z.record(z.string(), z.unknown()),
      }),
      Choice: z.union([z.string(), z.strictObject({ kind: z.enum(['a', 'b', 'c', 'd', 'e']) }), z.literal(null)]),
      Tagged: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('one'), value: z.string() }),
        z.strictObject({ kind: z.enum(['two', 'three']), items: z.array(z.number()) }),
      ]),
    };
    const parsers = compileParsers(schemas);
    for (const [index, [name, schema]] of Object.entries(schemas).entries())
      fuzz(schema as z.ZodType, parsers[name]!, 100 + index, 400);
    const odd: unknown[] = [
      { short: '😀😀', long: '😀😀', any: undefined },
      { short: '😀😀', long: '😀😀😀' },
      { short: '\ud800\udc00\ud800', long: 'abc', any: 1 },
      { tags: ['a', 'b'], some: [undefined], table: { a: 1 }, loose: { [Symbol('s')]: 1 } },
      { tags: [], some: new Array(1), table: JSON.parse('{"__proto__":"x","a":1}'), loose: new Map() },
      { tags: [], some: [1], table: Object.create(null), loose: Object.defineProperty({}, 'h', { value: 1 }) },
      { tags: [], some: [1], table: new (class Table {})(), loose: {} },
      { tags: [], some: [1], table: { 1: 2, b: 3, 0: 4 }, loose: { constructor: 5 } },
    ];
    for (const value of odd) {
      assertAgrees(schemas.Text, parsers.Text!, value);
      assertAgrees(schemas.Lists, parsers.Lists!, value);
    }
  });

  it('refuses what it cannot check as zod does, naming where', () => {
    const refused: Record<string, z.ZodType> = {
      transform: z.object({ text: z.string().trim() }),
      format: z.object({ mail: z.email() }),
      refine: z.object({ even: z.number().refine((value) => value % 2 === 0) }),
      default: z.object({ level: z.string().default('info') }),
      lazy: z.object({ self: z.lazy(() => z.string()) }),
      loose: z.looseObject({ a: z.string() }),
      date: z.object({ at: z.date() }),
    };
    for (const [feature, schema] of Object.entries(refused))
      assert.throws(() => compileParsers({ Refused: schema }), UnsupportedSchema, feature);
  });
});
