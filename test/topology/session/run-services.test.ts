/**
 * One run's services in two processes (the owner and a fleet worker each open them,
 * src/topology/session/run-services.ts): a rate limit that one process's gate meets lowers the other
 * process's gate too, through Postgres NOTIFY on real connections — a 429 anywhere slows the whole
 * run — and is logged once, by the process that met it. A process ignores its own signal, and other
 * runs' signals never reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Coordination, createCoordination } from '../../../src/coord/index.js';
import { createScriptedProvider } from '../../../src/model/index.js';
import type { GateSlot } from '../../../src/run/rate-gate.js';
import type { Store } from '../../../src/store/index.js';
import { openRunServices, type RunServices } from '../../../src/topology/session/run-services.js';
import { openTestStore, testRunId } from '../../helpers/db.js';
import { createUserRepo } from '../../helpers/user-repo.js';
import { peersSpec } from '../peers-spec.js';

let store: Store;
/** Each Coordination plays one process: its own LISTEN connection. */
const coords: Coordination[] = [];
beforeAll(async () => {
  store = await openTestStore();
  for (let i = 0; i < 3; i++) coords.push(await createCoordination(store));
});
afterAll(async () => {
  for (const c of coords) await c.close();
  await store.close();
});

async function open(runId: string, coord: Coordination): Promise<RunServices> {
  const spec = peersSpec(createUserRepo({ 'README.md': '# r\n' }, 'colony-services-'), {
    runId,
    agents: 2,
    goal: 'g',
    verify: 'true',
    sandbox: { enabled: false, network: true, passEnv: [] },
  });
  const opened = await openRunServices({
    spec,
    store,
    log: store.log,
    coord,
    env: {},
    provider: createScriptedProvider(() => ({ text: 'ok' })),
  });
  if (!opened.ok) throw new Error(opened.error);
  return opened.value;
}

async function holdSlots(services: RunServices, n: number): Promise<GateSlot[]> {
  const slots: GateSlot[] = [];
  for (let i = 0; i < n; i++) {
    const slot = await services.gate.hold();
    if (!slot) throw new Error('no slot');
    slots.push(slot);
  }
  return slots;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a run whose agents run in several processes', () => {
  it('lowers every process’s rate gate when one of them is rate limited', async () => {
    const runId = testRunId('rate-signal');
    const [a, b, c] = coords;
    if (!a || !b || !c) throw new Error('no coordination');
    const owner = await open(runId, a);
    const worker = await open(runId, b);
    const otherRun = await open(testRunId('rate-other'), c);
    try {
      const ownerSlots = await holdSlots(owner, 2);
      const workerSlots = await holdSlots(worker, 6);
      const otherSlots = await holdSlots(otherRun, 6);
      expect(worker.gate.stats().limit).toBeNull();

      ownerSlots[0]?.release('rate_limited');
      expect(owner.gate.stats()).toMatchObject({ limit: 1, shrinks: 1 });
      // The worker halves what it has in flight (6 → 3), as its own 429 would have.
      await until(() => worker.gate.stats().limit !== null, "the worker's gate to lower");
      expect(worker.gate.stats()).toMatchObject({ limit: 3, shrinks: 1 });

      // Logged once, by the process that met the limit; its own signal did not lower it twice.
      await owner.log.flush?.();
      const hits = await store.log.read(runId, { kinds: ['limit.hit'] });
      expect(hits.map((e) => e.data)).toEqual([{ limit: 'model_concurrency', value: 1, used: 2 }]);
      expect(owner.gate.stats().shrinks).toBe(1);
      // Another run's gate is untouched.
      expect(otherRun.gate.stats()).toMatchObject({ limit: null, shrinks: 0 });
      for (const slot of [...ownerSlots, ...workerSlots, ...otherSlots]) slot.release('ok');
    } finally {
      for (const services of [owner, worker, otherRun]) services.close();
    }
  });
});
