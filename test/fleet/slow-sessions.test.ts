import { describe, expect, it } from 'vitest';
import { slowSessionsLine } from '../../src/fleet/owner.js';

describe('the owner names the sessions it waits for too long', () => {
  const now = 1_000_000;
  const waited = (id: string, seconds: number) => [id, { since: now - seconds * 1000 }] as const;

  it('says where DBOS has each: running on which worker, queued, ended, or missing', () => {
    const line = slowSessionsLine(
      [waited('r/peer-1', 64), waited('r/peer-2', 61), waited('r/peer-3#2', 90), waited('r/peer-4', 75)],
      [
        { workflowID: 'r/peer-1', status: 'PENDING', executorId: 'worker:ps' },
        { workflowID: 'r/peer-2', status: 'ENQUEUED' },
        { workflowID: 'r/peer-3#2', status: 'SUCCESS' },
      ],
      now,
    );
    expect(line).toBe(
      'fleet: still waiting for 4 session(s): r/peer-1 (running on worker:ps, 64 s), ' +
        'r/peer-2 (queued: no worker has taken it, 61 s), r/peer-3#2 (success, 90 s), ' +
        'r/peer-4 (not in the queue, 75 s)',
    );
  });

  it('names at most eight and counts the rest', () => {
    const slow = Array.from({ length: 11 }, (_, i) => waited(`r/peer-${i + 1}`, 70));
    const line = slowSessionsLine(slow, [], now);
    expect(line).toMatch(/^fleet: still waiting for 11 session\(s\): /);
    expect(line.match(/not in the queue/g)).toHaveLength(8);
    expect(line).toMatch(/r\/peer-8 \(not in the queue, 70 s\) and 3 more$/);
  });
});
