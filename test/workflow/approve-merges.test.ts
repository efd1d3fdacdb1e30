/**
 * `colony workflow --approve-merges` (a real run in-process: Postgres, git, the agent loop; scripted
 * model): a writer step's merge request is parked until a person decides, and the step waits for the
 * decision. Approved, it lands; rejected, the step fails as merge_rejected with the person's reason.
 * The test acts only on events in the log.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/providers/scripted.js';
import type { Store } from '../../src/store/index.js';
import { approveFromOutside, rejectFromOutside } from '../../src/workspace/integration/index.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { ofKind, runWorkflowFile } from './run-helper.js';

let store: Store;

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

const policy: ScriptedPolicy = (request) =>
  request.messages.some((m) => m.role === 'assistant')
    ? { text: 'wrote the answer' }
    : { toolCalls: [{ name: 'write', arguments: { path: 'answer.txt', content: '42\n' } }] };

/** Decides the run's first parked request once the log shows it parked, with nothing landed yet. */
function decideWhenParked(decide: (runId: string, mr: number) => Promise<unknown>) {
  let seen: { landedBefore: number } | null = null;
  let done: Promise<void> = Promise.resolve();
  return {
    onRecorded(runId: string) {
      done = (async () => {
        const end = Date.now() + 60_000;
        for (;;) {
          const [parked] = await store.log.read(runId, { kinds: ['merge.awaiting_approval'] });
          if (parked) {
            seen = { landedBefore: (await store.log.read(runId, { kinds: ['merge.landed'] })).length };
            await decide(runId, parked.data.mr);
            return;
          }
          if (Date.now() > end) throw new Error('no merge request was parked');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
    },
    async seen() {
      await done;
      return seen;
    },
  };
}

describe('workflow with --approve-merges', () => {
  it('lands a writer step only after its merge request is approved', async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' });
    const decider = decideWhenParked((runId, mr) => approveFromOutside(store.log, runId, mr));
    const run = await runWorkflowFile(store, {
      file: join(import.meta.dirname, 'fixtures', 'one-writer.ts'),
      repo: repo.dir,
      policy,
      mergeVerify: 'true',
      approveMerges: true,
      onRecorded: decider.onRecorded,
    });
    expect(await decider.seen()).toEqual({ landedBefore: 0 });
    expect(run.result?.value).toEqual({ landed: true });
    expect(ofKind(run.events, 'merge.approved')).toHaveLength(1);
    expect(ofKind(run.events, 'merge.landed')).toHaveLength(1);
  });

  it('fails a writer step whose merge request is rejected, with the reason', async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' });
    const decider = decideWhenParked((runId, mr) =>
      rejectFromOutside(store.log, runId, mr, 'the answer belongs in src/'),
    );
    const run = await runWorkflowFile(store, {
      file: join(import.meta.dirname, 'fixtures', 'one-writer.ts'),
      repo: repo.dir,
      policy,
      mergeVerify: 'true',
      approveMerges: true,
      onRecorded: decider.onRecorded,
    });
    expect(await decider.seen()).toEqual({ landedBefore: 0 });
    expect(run.result?.value).toMatchObject({
      landed: false,
      kind: 'merge_rejected',
      error: expect.stringContaining('rejected by user: the answer belongs in src/'),
    });
    expect(ofKind(run.events, 'merge.landed')).toEqual([]);
  });
});
