/** The grading rule on parsed results: lookup by name or alias, duplicates, skipped and missing tests. */
import { describe, expect, it } from 'vitest';
import type { TestResult } from '../../../src/eval/suite/results/types.js';
import { judge } from '../../../src/eval/suite/verdict.js';

const r = (name: string, status: TestResult['status'], aliases: string[] = []): TestResult => ({
  name,
  status,
  aliases,
});

describe('judge', () => {
  it('passes when every listed test passes, whatever else fails', () => {
    const verdict = judge({ failToPass: ['a'], passToPass: ['b'] }, [
      r('a', 'pass'),
      r('b', 'pass'),
      r('unlisted', 'fail'),
    ]);
    expect(verdict).toMatchObject({ pass: true, passed: 2, total: 2, score: 1 });
  });

  it('scores the share of listed tests passing; skipped and missing tests do not pass', () => {
    const verdict = judge({ failToPass: ['a', 'b'], passToPass: ['c', 'd'] }, [
      r('a', 'pass'),
      r('b', 'skip'),
      r('c', 'fail'),
    ]);
    expect(verdict.pass).toBe(false);
    expect(verdict.score).toBe(0.25);
    expect(verdict.checks).toEqual([
      { name: 'a', list: 'failToPass', status: 'pass' },
      { name: 'b', list: 'failToPass', status: 'skip' },
      { name: 'c', list: 'passToPass', status: 'fail' },
      { name: 'd', list: 'passToPass', status: 'missing' },
    ]);
  });

  it('finds tests by alias, and a name that ran twice must pass twice', () => {
    const results = [r('pytest > t', 'pass', ['tests/x.py::t']), r('dup', 'pass'), r('dup', 'fail')];
    const verdict = judge({ failToPass: ['tests/x.py::t', 'dup'], passToPass: [] }, results);
    expect(verdict.checks.map((c) => c.status)).toEqual(['pass', 'fail']);
  });

  it('never passes an empty list', () => {
    expect(judge({ failToPass: [], passToPass: [] }, [])).toMatchObject({ pass: false, score: 0 });
  });
});
