import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/index.js';
import { type MergeRequestResult, pgIntegrationLock } from '../../../src/workspace/integration/index.js';
import { openTestStore } from '../../helpers/db.js';
import { sh } from '../helpers.js';
import { commitFiles, type Fixture, makeFixture } from './fixture.js';

const CHILD = fileURLToPath(new URL('./fixtures/integrator-child.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../../dist/src/workspace/integration/index.js', import.meta.url));

/** Fails (and records the overlap) when another verify is running at the same time; lists what it verified. */
const VERIFY = `mkdir "$INFLIGHT" 2>/dev/null || { echo overlap >> "$OVERLAPS"; exit 1; }
git rev-parse HEAD >> "$VERIFIED"
sleep 0.2
rmdir "$INFLIGHT"`;

let store: Store;
let f: Fixture;

beforeAll(async () => {
  store = await openTestStore();
  f = await makeFixture(store, 'concurrent');
});

afterAll(async () => {
  f.cleanup();
  await store.close();
});

function runChild(job: unknown): Promise<{ results: MergeRequestResult[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, INTEGRATOR_JOB: JSON.stringify(job) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}'));
      else reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}

describe('integration across queues and processes', () => {
  it('two queues in this process and one in another never land concurrently; main is linear and verified', async () => {
    // The other process runs the built queue: without dist/ this test cannot mean anything.
    if (!existsSync(BUILT))
      throw new Error(`${BUILT} is missing: run \`npm run build\` (npm test builds it first)`);
    const env = {
      INFLIGHT: path.join(f.dir, 'inflight'),
      OVERLAPS: path.join(f.dir, 'overlaps'),
      VERIFIED: path.join(f.dir, 'verified'),
    };
    const names = Array.from({ length: 9 }, (_, i) => `w${i}`);
    const agents = await Promise.all(names.map((n) => f.agent(n)));
    const commits = agents.map((a, i) => commitFiles(a.path, { [`src/${names[i]}.txt`]: `${i}\n` }, `w${i}`));
    const requests = agents.map((a, i) => ({
      agent: names[i] ?? '',
      branch: a.branch,
      note: `add ${names[i]}`,
    }));
    const lockA = pgIntegrationLock(store.connection);
    const lockB = pgIntegrationLock(store.connection);
    const options = { verify: VERIFY, env: { ...process.env, ...env }, batchSize: 1 };
    const queueA = f.queue({ ...options, lock: lockA });
    const queueB = f.queue({ ...options, lock: lockB });
    const child = runChild({
      runId: f.runId,
      hub: f.hub,
      workRoot: path.join(f.dir, 'work'),
      verify: VERIFY,
      env,
      requests: requests.slice(6),
    });
    const local = await Promise.all([
      ...requests.slice(0, 3).map((r) => queueA.submit(r)),
      ...requests.slice(3, 6).map((r) => queueB.submit(r)),
    ]);
    const { results: remote } = await child;
    await Promise.all([lockA.close(), lockB.close()]);
    const all = [...local, ...remote];
    expect(all.map((r) => r.status)).toEqual(Array(9).fill('landed'));
    expect(existsSync(env.OVERLAPS)).toBe(false);
    // MR ids unique across processes.
    const ids = all.map((r) => (r.status === 'error' ? -1 : r.mr)).sort((a, b) => a - b);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Main is linear: base + 9 commits, each one verified before it landed.
    const main = f.mainLog();
    expect(main).toHaveLength(10);
    expect(sh(f.hub, 'rev-list', '--merges', 'main')).toBe('');
    const verified = new Set(readFileSync(env.VERIFIED, 'utf8').split('\n'));
    for (const commit of main.slice(0, -1)) expect(verified.has(commit)).toBe(true);
    const reachable = new Set(sh(f.hub, 'rev-list', '--all').split('\n'));
    for (const commit of commits) expect(reachable.has(commit)).toBe(true);
  });
});
