import { describe, expect, it } from 'vitest';
import { StrandedWatch } from '../../src/fleet/stranded-sessions.js';

describe('StrandedWatch', () => {
  const a = { workflowId: 'r/peer-1', claim: 'x1' };
  const b = { workflowId: 'r/peer-2', claim: 'x2' };

  it('names a claim nothing here runs only once it stayed so, under the same claim, for the wait', () => {
    const watch = new StrandedWatch(10_000);
    expect(watch.due([a, b], new Set(['r/peer-2']), 0)).toEqual([]);
    expect(watch.due([a, b], new Set(['r/peer-2']), 9_999)).toEqual([]);
    expect(watch.due([a, b], new Set(['r/peer-2']), 10_000)).toEqual([a]);
  });

  it('starts again for a new claim of the same session, and forgets what ran or left', () => {
    const watch = new StrandedWatch(10_000);
    watch.due([a], new Set(), 0);
    // Claimed again (another token) at 8 s: its own wait begins then.
    const again = { workflowId: a.workflowId, claim: 'x3' };
    expect(watch.due([again], new Set(), 8_000)).toEqual([]);
    expect(watch.due([again], new Set(), 17_999)).toEqual([]);
    expect(watch.due([again], new Set(), 18_000)).toEqual([again]);
    // It ran here for a while: seen unrun again later, the wait begins anew.
    watch.due([again], new Set([a.workflowId]), 19_000);
    expect(watch.due([again], new Set(), 20_000)).toEqual([]);
    expect(watch.due([again], new Set(), 30_000)).toEqual([again]);
  });
});
