/**
 * Integration candidates start clean (issue 27): a peers run through executeRun (scripted peers, real
 * git, Postgres, the bubblewrap sandbox) in which one candidate's merge check writes files git ignores
 * in the integration worktree, and later candidates' verdicts must not depend on them. Each candidate
 * is verified on a checkout with no ignored file left by an earlier one, and with a pristine copy of
 * what `--setup` made on the base tree.
 *
 * The peers run one at a time (concurrency 1), each waiting for its merge request's outcome, so each
 * request is a candidate of its own, in order:
 * - peer-1's check.sh plants `build/ok` and tampers with setup's `build/from-setup`, then fails;
 * - peer-2 changes a plain file; the base check.sh wants setup's `build/from-setup` as setup wrote it
 *   and no `build/ok`: it must land;
 * - peer-3's check.sh passes only if `build/ok` exists: it must be rejected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar, eventsOf, peersSpec, queuedMr, runScriptedPeers } from './peers-spec.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const BASE_CHECK = `grep -qx setup build/from-setup || { echo "build/from-setup is not setup's"; exit 1; }
test ! -e build/ok || { echo "build/ok was left by an earlier candidate"; exit 1; }
echo clean
`;
/** peer-1's "tests": they write ignored files and fail. */
const PLANTING_CHECK = 'mkdir -p build && touch build/ok && echo tampered > build/from-setup; exit 1\n';
/** peer-3's "tests": they pass only on what peer-1 planted. */
const PLANTED_CHECK = 'test -f build/ok\n';

const policy: ScriptedPolicy = (request) => {
  const id = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
  const calls = callsSoFar(request);
  const lastResult = request.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
  const last = calls.at(-1);
  if (!last) {
    if (id === 'peer-1') return call('write', { path: 'check.sh', content: PLANTING_CHECK });
    if (id === 'peer-2') return call('write', { path: 'c.txt', content: 'a plain change\n' });
    return call('write', { path: 'check.sh', content: PLANTED_CHECK });
  }
  switch (last.name) {
    case 'write':
      return call('merge_request', { note: `${id}'s change` });
    case 'merge_request':
      return call('merge_status', { mr: queuedMr(lastResult), wait: true });
    default:
      return { text: `${id}: done` };
  }
};

describe('integration candidates start clean', () => {
  it("a candidate's ignored files never reach a later candidate's verify; setup's files come back pristine", async () => {
    const repo = createUserRepo(
      { '.gitignore': 'build/\n', 'check.sh': BASE_CHECK, 'README.md': '# clean candidates\n' },
      'colony-clean-candidates-',
    );
    const spec = peersSpec(repo, {
      runId: testRunId('clean-candidates'),
      agents: 3,
      concurrency: 1,
      goal: 'Change the repository.',
      verify: undefined,
      mergeVerify: 'sh check.sh',
      setup: 'mkdir -p build && echo setup > build/from-setup',
    });
    await runScriptedPeers(store, spec, policy, 10);
    const of = eventsOf(await store.log.read(spec.runId));

    const outcome = (agent: string) =>
      of('merge.landed').some((e) => e.agent === agent)
        ? 'landed'
        : (of('merge.rejected').find((e) => e.agent === agent)?.data.reason ?? 'none');
    // Before the fix (`git clean -ffdq`, ignored files kept): peer-2 was rejected (peer-1's build/ok
    // and its build/from-setup were still there) and peer-3 landed on what peer-1 planted.
    expect({ 'peer-1': outcome('peer-1'), 'peer-2': outcome('peer-2'), 'peer-3': outcome('peer-3') }).toEqual(
      {
        'peer-1': 'verify_failed',
        'peer-2': 'landed',
        'peer-3': 'verify_failed',
      },
    );
  }, 120_000);
});
