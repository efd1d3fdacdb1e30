/** Structured-output parsing (pure functions). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { extractJson, outputInstruction, parseOutput } from '../../src/workflow/output.js';

const Schema = z.object({ risks: z.array(z.object({ file: z.string(), line: z.number().int() })) });

describe('structured outputs', () => {
  it('finds JSON bare, fenced or inside prose', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
    expect(extractJson('Here:\n```json\n{"a":2}\n```\nDone.')).toEqual({ a: 2 });
    expect(extractJson('I found {"a":3} in total')).toEqual({ a: 3 });
    expect(extractJson('no json here')).toBeUndefined();
  });

  it('says which fields are wrong', () => {
    const bad = parseOutput('{"risks":[{"file":"a.js","line":"four"}]}', Schema);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problem).toContain('risks.0.line');
    expect(parseOutput('{"risks":[]}', Schema)).toEqual({ ok: true, value: { risks: [] } });
    expect(parseOutput('nothing', Schema)).toEqual({
      ok: false,
      problem: 'the answer contains no JSON value',
    });
  });

  it('tells the agent the JSON Schema', () => {
    expect(outputInstruction(Schema)).toContain('"line":{"type":"integer"');
  });
});
