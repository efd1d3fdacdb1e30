/**
 * The watchdog measures time outside tool calls (src/topology/peers/activity.ts): a peer inside a tool
 * (a long bash, a merge_request waiting for the queue) is never nudged however long the tool takes; a
 * peer that shows nothing outside a tool is nudged and then declared stalled. On the real event log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { trackActivity } from '../../../src/topology/peers/activity.js';
import { startWatchdog } from '../../../src/topology/peers/watchdog.js';
import { openTestStore, testRunId } from '../../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('peer watchdog', () => {
  it('never nudges a peer inside a tool call; nudges, then stalls, one idle outside', async () => {
    const runId = testRunId('watchdog');
    const activity = trackActivity(store.log);
    const tool = (agent: string, kind: 'tool.started' | 'tool.finished', callId: string) =>
      activity.log.append(
        kind === 'tool.started'
          ? { runId, agent, kind, data: { step: 1, callId, name: 'bash', arguments: '{}' } }
          : {
              runId,
              agent,
              kind,
              data: {
                step: 1,
                callId,
                name: 'bash',
                isError: false,
                content: '',
                summary: '',
                durationMs: 1,
              },
            },
      );
    const nudged: string[] = [];
    const stalled: string[] = [];
    const watchdog = startWatchdog(activity, 100, {
      working: () => ['busy', 'idle'],
      nudge: async (agent) => {
        nudged.push(agent);
      },
      stall: async (agent) => {
        stalled.push(agent);
      },
      revive: () => {},
    });
    try {
      // Two calls in flight at once (parallel tools): waiting until both are done.
      await tool('busy', 'tool.started', 'a');
      await tool('busy', 'tool.started', 'b');
      activity.touch('idle');
      await tool('busy', 'tool.finished', 'a');
      expect(activity.waiting('busy')).toBe(true);
      await sleep(600);
      expect(nudged).toEqual(['idle']);
      expect(stalled).toEqual(['idle']);
      expect(activity.waiting('busy')).toBe(true);
      await tool('busy', 'tool.finished', 'b');
      expect(activity.waiting('busy')).toBe(false);
      await sleep(600);
      // Out of its tools and silent: now it is nudged too.
      expect(nudged).toEqual(['idle', 'busy']);
    } finally {
      watchdog.stop();
    }
  });
});
