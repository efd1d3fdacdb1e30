import { describe, expect, it } from 'vitest';
import { brentBounds, fileConflicts, listSchedule, span, work } from '../../../src/eval/plan/index.js';
import { chain, forkJoin, independent, task } from './dags.js';

describe('critical-path-first list schedule', () => {
  it('a chain takes its span on any team', () => {
    for (const p of [1, 2, 8]) expect(listSchedule(chain, p).makespanMs).toBe(6000);
  });

  it('one agent takes the work', () => {
    expect(listSchedule(forkJoin, 1).makespanMs).toBe(10_000);
    expect(listSchedule(independent, 1).makespanMs).toBe(10_000);
  });

  it('independent tasks on 2 agents reach the optimum (3+2 | 3+2)', () => {
    expect(listSchedule(independent, 2).makespanMs).toBe(5000);
  });

  it('fork-join: 3 agents reach the span, 2 agents put x alone and y, z together', () => {
    expect(listSchedule(forkJoin, 3).makespanMs).toBe(6000);
    expect(listSchedule(forkJoin, 2).makespanMs).toBe(6000);
    expect(listSchedule(forkJoin, 2).starts.get('j')?.startMs).toBe(5000);
  });

  it('longest-first beats arrival order where it matters', () => {
    // 2 agents: a short task listed first would leave the 4 s task for later (1+4 = 5 s).
    const tasks = [task('short1', 1000), task('short2', 1000), task('long', 4000)];
    expect(listSchedule(tasks, 2).makespanMs).toBe(4000);
  });

  it('reports the most agents busy at once: past it, more agents change nothing', () => {
    expect(listSchedule(chain, 8).peakAgents).toBe(1);
    expect(listSchedule(forkJoin, 8).peakAgents).toBe(3);
    expect(listSchedule(forkJoin, 2).peakAgents).toBe(2);
    expect(listSchedule(independent, 16).peakAgents).toBe(4);
    const shared = independent.map((t) => ({ ...t, files: ['src/one.ts'] }));
    expect(listSchedule(shared, 16, { conflicts: fileConflicts(shared) }).peakAgents).toBe(1);
  });

  it('stays within the Brent bounds without conflicts', () => {
    for (const tasks of [chain, forkJoin, independent])
      for (const p of [1, 2, 3, 4, 16]) {
        const { lower, upper } = brentBounds(work(tasks), span(tasks), p);
        const made = listSchedule(tasks, p).makespanMs;
        expect(made).toBeGreaterThanOrEqual(lower);
        expect(made).toBeLessThanOrEqual(upper);
      }
  });
});

describe('conflict penalty', () => {
  it('tasks whose files overlap never run at the same time', () => {
    const tasks = [
      task('a', 2000, [], ['src/x.ts']),
      task('b', 2000, [], ['src/x.ts', 'src/y.ts']),
      task('c', 2000),
    ];
    const conflicts = fileConflicts(tasks);
    expect([...(conflicts.get('a') ?? [])]).toEqual(['b']);
    expect(listSchedule(tasks, 3).makespanMs).toBe(2000);
    const serial = listSchedule(tasks, 3, { conflicts });
    expect(serial.makespanMs).toBe(4000);
    const a = serial.starts.get('a')?.startMs ?? -1;
    const b = serial.starts.get('b')?.startMs ?? -1;
    expect(Math.abs(a - b)).toBeGreaterThanOrEqual(2000);
  });

  it('disjoint files do not conflict', () => {
    const tasks = [task('a', 2000, [], ['src/x.ts']), task('b', 2000, [], ['src/y.ts'])];
    expect(fileConflicts(tasks).size).toBe(0);
    expect(listSchedule(tasks, 2, { conflicts: fileConflicts(tasks) }).makespanMs).toBe(2000);
  });
});
