/** A person's task edit is checked with the rules of tasks_add before it reaches the database. */
import { describe, expect, it } from 'vitest';
import { validateTaskEdit } from '../../src/coord/task-input.js';

describe('validateTaskEdit', () => {
  it('normalises title, detail and scope; empty detail or scope clears it', () => {
    expect(validateTaskEdit({ title: '  parser  ', detail: ' how ', scope: './src//parser' })).toEqual({
      ok: true,
      value: { title: 'parser', detail: 'how', scope: 'src/parser', kind: 'path', scopeKey: 'src/parser/' },
    });
    expect(validateTaskEdit({ detail: '  ', scope: '' })).toEqual({
      ok: true,
      value: { detail: null, scope: null, kind: null, scopeKey: null },
    });
    expect(validateTaskEdit({ before: 3 })).toEqual({ ok: true, value: { before: 3 } });
  });

  it('refuses what tasks_add refuses, both places, a bad id and an empty edit, with the reason', () => {
    const error = (edit: Parameters<typeof validateTaskEdit>[0]) => {
      const r = validateTaskEdit(edit);
      return r.ok ? null : r.error;
    };
    expect(error({ title: ' ' })).toMatch(/title is empty/);
    expect(error({ title: 'x'.repeat(201) })).toMatch(/the limit is 200/);
    expect(error({ scope: '../etc' })).not.toBeNull();
    expect(error({ scope: '/etc' })).not.toBeNull();
    expect(error({ before: 1, after: 2 })).toMatch(/not both/);
    expect(error({ after: 0 })).toMatch(/not a task id/);
    expect(error({ before: 1.5 })).toMatch(/not a task id/);
    expect(error({})).toMatch(/nothing to change/);
  });
});
