import assert from 'node:assert/strict';
import { z } from 'zod';
import { modelFacingSchema } from '../../../../src/core/tools/model-facing-schema';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import { defineTool } from '../../../../src/core/tools/tool';

describe('model-facing tool schemas', () => {
  it('moves length, count and pattern limits into the description, keeping types, enums, required and number bounds', () => {
    const shown = modelFacingSchema({
      type: 'object',
      properties: {
        focus: { type: 'string', maxLength: 2000, description: 'What to keep.' },
        tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, minItems: 1, maxItems: 500 },
        mode: { type: 'string', enum: ['a', 'b'] },
        count: { type: 'integer', minimum: 1, maximum: 10 },
      },
      required: ['mode'],
      additionalProperties: false,
    });
    assert.deepEqual(shown, {
      type: 'object',
      properties: {
        focus: { type: 'string', description: 'What to keep. (max 2000 chars)' },
        tags: {
          type: 'array',
          items: { type: 'string', description: '(pattern ^[a-z]+$)' },
          description: '(1-500 items)',
        },
        mode: { type: 'string', enum: ['a', 'b'] },
        count: { type: 'integer', minimum: 1, maximum: 10 },
      },
      required: ['mode'],
      additionalProperties: false,
    });
  });

  it('says each pair of bounds as one short phrase', () => {
    const said = (schema: Record<string, unknown>) => modelFacingSchema(schema).description;
    assert.equal(said({ type: 'string', minLength: 1 }), '(non-empty)');
    assert.equal(said({ type: 'string', minLength: 0, maxLength: 80 }), '(max 80 chars)');
    assert.equal(said({ type: 'string', minLength: 4, maxLength: 4 }), '(exactly 4 chars)');
    assert.equal(said({ type: 'array', minItems: 2, uniqueItems: true }), '(min 2 items, unique items)');
    assert.equal(said({ type: 'string', minLength: 0 }), undefined);
    assert.deepEqual(
      modelFacingSchema(z.toJSONSchema(z.object({ line: z.number().int().min(1) })) as Record<string, unknown>)
        .properties,
      { line: { type: 'integer', minimum: 1 } },
      "zod's safe-integer ends are no bound to a model",
    );
  });

  it('reaches into anyOf, $defs and nested items, and leaves the input schema untouched', () => {
    const input = {
      anyOf: [{ type: 'string', minLength: 3 }, { $ref: '#/$defs/big' }],
      $defs: { big: { type: 'array', items: { type: 'array', items: { type: 'string', format: 'uri' } } } },
    };
    const before = JSON.stringify(input);
    const shown = JSON.stringify(modelFacingSchema(input));
    assert.doesNotMatch(shown, /"minLength"|"format"/);
    assert.match(shown, /min 3 chars/);
    assert.match(shown, /format uri/);
    assert.equal(JSON.stringify(input), before);
  });

  it('survives hostile schemas: endless nesting, __proto__ property names, odd values', () => {
    let deep: Record<string, unknown> = { type: 'string', maxLength: 5 };
    for (let level = 0; level < 10_000; level++) deep = { type: 'array', items: deep };
    const shown = modelFacingSchema(deep);
    assert.ok(JSON.stringify(shown).length < 5_000, 'nesting past the limit is cut to "anything"');

    const parsed = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","maxLength":9}},"maxLength":"lots","items":null}',
    ) as Record<string, unknown>;
    const safe = modelFacingSchema(parsed);
    const properties = safe.properties as Record<string, unknown>;
    assert.ok(Object.hasOwn(properties, '__proto__'), 'the property is kept as data');
    assert.equal(Object.getPrototypeOf(properties), Object.prototype);
    assert.deepEqual(properties['__proto__'], { type: 'string', description: '(max 9 chars)' });
    assert.equal(safe.items, null);
  });

  it('is what the registry offers for every tool, while calls are still validated against the full schema', () => {
    const tool = defineTool({
      name: 'note',
      description: 'Take a note.',
      inputSchema: z.object({ text: z.string().max(2_000) }),
      readOnly: true,
      needsApproval: false,
      execute: async () => 'ok',
    });
    const registry = new ToolRegistry([tool]);
    const [definition] = registry.definitions();
    assert.doesNotMatch(JSON.stringify(definition?.inputSchema), /maxLength/);
    assert.match(JSON.stringify(definition?.inputSchema), /max 2000 chars/);
    assert.equal(tool.inputSchema.safeParse({ text: 'x'.repeat(2_001) }).success, false);
  });
});
