/**
 * What still waits for a person (src/notify/open-occurrences.ts): the notifier's occurrences, minus
 * those settled since — a merge decided, landed or rejected; a stalled agent that moves again; a budget
 * warning whose limit was hit; everything but limit hits once the run has finished.
 */
import { describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { openOccurrences } from '../../src/notify/open-occurrences.js';

let seq = 0;
function stored(event: Omit<EventInput, 'runId'>): StoredEvent {
  seq += 1;
  return {
    ...event,
    runId: 'r-1',
    seq,
    ts: new Date(seq * 1000).toISOString(),
    hash: '',
    prevHash: '',
  } as StoredEvent;
}
const awaiting = (mr: number) => [
  stored({
    agent: 'peer-1',
    kind: 'merge.requested',
    data: { mr, branch: 'b', commit: 'c', note: `mr ${mr}` },
  }),
  stored({ agent: null, kind: 'merge.awaiting_approval', data: { mr, commit: 'c' } }),
];
const stall = (agent: string) => stored({ agent, kind: 'agent.stalled', data: { idleMs: 1000 } });
const toolStarted = (agent: string) =>
  stored({ agent, kind: 'tool.started', data: { step: 2, callId: 'x', name: 'ls', arguments: '{}' } });
const open = (events: StoredEvent[], approvals = true) =>
  openOccurrences(events, { approvals }).map((o) => o.key);

describe('open occurrences', () => {
  it('settles an approval once decided, landed or rejected, and reopens one whose decision did not count', () => {
    const one = awaiting(1);
    const two = awaiting(2);
    const three = awaiting(3);
    expect(open([...one, ...two, ...three])).toEqual(['approval:mr-1', 'approval:mr-2', 'approval:mr-3']);
    const approved = stored({ agent: 'peer-1', kind: 'merge.approved', data: { mr: 1, by: 'peer-1' } });
    const landed = stored({
      agent: null,
      kind: 'merge.landed',
      data: { mr: 2, commit: 'd', mainBefore: 'e', batch: [2] },
    });
    const declined = stored({
      agent: null,
      kind: 'merge.declined',
      data: { mr: 3, by: 'user', reason: 'no' },
    });
    const settled = [...one, ...two, ...three, approved, landed, declined];
    expect(open(settled)).toEqual([]);
    const ignored = stored({
      agent: null,
      kind: 'merge.approval_ignored',
      data: {
        mr: 1,
        by: 'peer-1',
        agent: 'peer-1',
        decision: 'approve',
        reason: 'own request',
        seq: approved.seq,
      },
    });
    expect(open([...settled, ignored])).toEqual(['approval:mr-1']);
    // Without --approve-merges nothing waits for a person.
    expect(open([...one], false)).toEqual([]);
  });

  it('settles a stalled agent when it moves again, not when another agent does', () => {
    const s = stall('peer-2');
    expect(open([s, toolStarted('peer-1')])).toEqual([s].map((e) => `stalled:peer-2:${e.seq}`));
    expect(open([s, toolStarted('peer-2')])).toEqual([]);
    const again = stall('peer-2');
    expect(open([s, toolStarted('peer-2'), again])).toEqual([`stalled:peer-2:${again.seq}`]);
  });

  it('keeps only limit hits once the run has finished', () => {
    const limit = stored({
      agent: 'peer-1',
      kind: 'limit.hit',
      data: { limit: 'max_steps', value: 5, used: 5 },
    });
    const finished = stored({
      agent: null,
      kind: 'run.finished',
      data: { status: 'failed', reason: 'x', resultBranch: null },
    });
    const keys = open([...awaiting(1), stall('peer-2'), limit, finished]);
    expect(keys).toEqual([`limit:max_steps:${limit.seq}`]);
  });
});
