import { describe, expect, it } from 'vitest';
import { crossCheck, effectiveBudget, parseArmsFile, parseTrialLines } from '../../src/eval/trial-record.js';
import { record } from './records.js';

const line = (r: unknown) => JSON.stringify(r);

describe('parseTrialLines', () => {
  it('keeps every valid line and skips blank ones', () => {
    const text = [
      line(record()),
      '',
      line(record({ trial: 1, outcome: 'fail', score: 0.4, firstGreenMs: null })),
      '  ',
    ].join('\n');
    const { records, issues } = parseTrialLines(text);
    expect(issues).toEqual([]);
    expect(records.map((r) => [r.trial, r.outcome])).toEqual([
      [0, 'pass'],
      [1, 'fail'],
    ]);
  });

  it('reports bad lines by number and field, and loses none of the good ones', () => {
    const { tokens: _tokens, ...noTokens } = record({ trial: 5 });
    const lines = [
      line(record()), // 1 ok
      '{"v": 1, "arm": ', // 2 not JSON
      line(record({ trial: 2, score: 1.5 })), // 3 score out of range
      line({ ...record({ trial: 3 }), outcome: 'crashed' }), // 4 unknown outcome
      line({ ...record({ trial: 4 }), v: 2 }), // 5 other version
      line(noTokens), // 6 missing field
      line({ ...record({ trial: 6 }), extra: true }), // 7 unknown field (a typo would hide here)
      line(record()), // 8 duplicate of line 1
      line(record({ trial: 9, tokens: { input: -1, cachedInput: 0, output: 0 } })), // 9 nested field
      line(record({ trial: 10 })), // 10 ok
      '[]', // 11 not an object
    ];
    const { records, issues } = parseTrialLines(lines.join('\n'));
    expect(records.map((r) => r.trial)).toEqual([0, 10]);
    const byLine = Object.fromEntries(issues.map((i) => [i.line, i.message]));
    expect(Object.keys(byLine).map(Number)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 11]);
    expect(byLine[2]).toMatch(/^not JSON/);
    expect(byLine[3]).toMatch(/^score:/);
    expect(byLine[4]).toMatch(/^outcome:/);
    expect(byLine[5]).toMatch(/^v: record version 2; this Colony reads version 1/);
    expect(byLine[6]).toMatch(/^tokens:/);
    expect(byLine[7]).toMatch(/extra/);
    expect(byLine[8]).toMatch(/duplicate of line 1/);
    expect(byLine[9]).toMatch(/^tokens\.input:/);
    expect(byLine[11]).toBeDefined();
  });

  it('names a missing version plainly', () => {
    const { v: _v, ...unversioned } = record();
    expect(parseTrialLines(line(unversioned)).issues[0]?.message).toMatch(/^v: missing/);
  });
});

describe('parseArmsFile', () => {
  it('reads arms with free configuration', () => {
    const parsed = parseArmsFile(
      line({
        v: 1,
        arms: [
          { name: 'solo', topology: 'solo', size: 1, solo: true },
          { name: 'p4', topology: 'peers', size: 4, model: 'x', accept: true },
        ],
      }),
    );
    expect(parsed.ok && parsed.arms[1]).toMatchObject({ name: 'p4', model: 'x', accept: true });
  });

  it.each([
    ['{', /not JSON/],
    [line({ v: 2, arms: [] }), /invalid at v/],
    [line({ v: 1, arms: [] }), /invalid at arms/],
    [line({ v: 1, arms: [{ name: 'a', topology: 'solo', size: 0 }] }), /arms\.0\.size/],
    [
      line({
        v: 1,
        arms: [
          { name: 'a', topology: 'solo', size: 1 },
          { name: 'a', topology: 'peers', size: 2 },
        ],
      }),
      /unique/,
    ],
    [
      line({
        v: 1,
        arms: [
          { name: 'a', topology: 'solo', size: 1, solo: true },
          { name: 'b', topology: 'solo', size: 1, solo: true },
        ],
      }),
      /at most one arm/,
    ],
  ])('refuses %s', (text, message) => {
    const parsed = parseArmsFile(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });
});

describe('crossCheck', () => {
  it('names trials of unknown arms and tasks filed under two repositories', () => {
    const problems = crossCheck(
      [
        record(),
        record({ arm: 'ghost' }),
        record({ arm: 'ghost', trial: 1 }),
        record({ trial: 2, repo: 'repo-b' }),
      ],
      [{ name: 'solo', topology: 'solo', size: 1 }],
    );
    expect(problems).toEqual([
      '2 trial(s) of arm "ghost", which arms.json does not describe (left out)',
      'task "task-1" is filed under repos "repo-a" and "repo-b" (the first is used)',
    ]);
  });
});

describe('the matched budget', () => {
  it('is read from arms.json (optional, so files without it read as before) and checked', () => {
    const arms = [{ name: 'solo', topology: 'solo', size: 1 }];
    expect(parseArmsFile(JSON.stringify({ v: 1, arms }))).toMatchObject({ ok: true, budget: null });
    expect(parseArmsFile(JSON.stringify({ v: 1, budget: { usd: 2 }, arms }))).toMatchObject({
      ok: true,
      budget: { usd: 2 },
    });
    expect(parseArmsFile(JSON.stringify({ v: 1, budget: {}, arms }))).toMatchObject({
      ok: false,
      error: expect.stringContaining('budget: give usd, tokens or both'),
    });
    expect(parseArmsFile(JSON.stringify({ v: 1, budget: { dollars: 2 }, arms }))).toMatchObject({
      ok: false,
    });
  });

  it('an arm runs under the lower of the matched budget and its own', () => {
    const arm = { name: 'a', topology: 'peers', size: 2, budgetUsd: 1 };
    expect(effectiveBudget(arm, { usd: 2, tokens: 500 })).toEqual({ usd: 1, tokens: 500 });
    expect(effectiveBudget(arm, null)).toEqual({ usd: 1 });
    expect(effectiveBudget({ name: 'b', topology: 'solo', size: 1 }, null)).toEqual({});
  });
});
