/** Time to first green verify from a run's events: which events count, and from when. */
import { describe, expect, it } from 'vitest';
import { firstGreenMsOf, type GreenEvent, NO_GREEN, noteGreen } from '../../../src/eval/run/first-green.js';

const VERIFY = 'node --test';
const at = (s: number) => new Date(Date.UTC(2026, 11, 4, 12, 0, s)).toISOString();

function fold(events: GreenEvent[], mergesVerified: boolean): number | null {
  let watch = NO_GREEN;
  for (const e of events) watch = noteGreen(watch, e, { verify: VERIFY, mergesVerified });
  return firstGreenMsOf(watch);
}

describe('first green verify', () => {
  const started: GreenEvent = { kind: 'run.started', ts: at(0) };

  it('is the first passing verify of the verify command, from run.started', () => {
    const events: GreenEvent[] = [
      started,
      { kind: 'verify.finished', ts: at(3), data: { command: VERIFY, passed: false } },
      { kind: 'verify.finished', ts: at(5), data: { command: 'npm run lint', passed: true } },
      { kind: 'sync.finished', ts: at(7), data: { command: VERIFY, passed: true } },
      { kind: 'verify.finished', ts: at(9), data: { command: VERIFY, passed: true } },
    ];
    expect(fold(events, false)).toBe(7000);
  });

  it('counts a landed merge only when merges are checked with the verify command', () => {
    const events: GreenEvent[] = [
      started,
      { kind: 'merge.landed', ts: at(2), data: {} },
      { kind: 'verify.finished', ts: at(6), data: { command: VERIFY, passed: true } },
    ];
    expect(fold(events, true)).toBe(2000);
    expect(fold(events, false)).toBe(6000);
  });

  it('is null when nothing passed, or the run never started', () => {
    expect(fold([started, { kind: 'merge.rejected', ts: at(1), data: {} }], true)).toBeNull();
    expect(
      fold([{ kind: 'verify.finished', ts: at(1), data: { command: VERIFY, passed: true } }], true),
    ).toBeNull();
    expect(
      fold(
        [started, { kind: 'verify.finished', ts: 'not a time', data: { command: VERIFY, passed: true } }],
        true,
      ),
    ).toBeNull();
  });
});
