import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tool/define.js';
import { ok } from '../../src/tool/types.js';

const schema = z.object({ path: z.string(), count: z.number().int().optional() });
const tool = (name: string) =>
  defineTool({ name, description: 'd', schema, mutates: false, run: async () => ok('done') });

describe('defineTool', () => {
  it('gives the model a JSON schema without $schema or safe-integer bounds', () => {
    const { parameters } = tool('t').spec;
    expect(parameters).toEqual({
      type: 'object',
      properties: { path: { type: 'string' }, count: { type: 'integer' } },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('converts a schema once: tools built from it share one frozen parameters object', () => {
    const first = tool('a').spec.parameters;
    expect(tool('b').spec.parameters).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first as { properties: object }).properties)).toBe(true);
  });

  it('refuses invalid arguments with the field named', async () => {
    const result = await tool('t').run({ path: 3 }, {} as never);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('path');
  });
});
