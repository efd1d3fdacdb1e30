/**
 * `colony run --run-id` (what `colony watch` starts runs with): a malformed id is a usage error, and
 * a second start under an id already recorded fails before doing anything — the runs table's key is
 * what makes a watch's restart safe when it cannot tell whether its first start got that far.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/core/ids.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const policy: ScriptedPolicy = (request) =>
  request.messages.some((m) => m.role === 'tool')
    ? { text: 'Wrote a.txt.' }
    : { toolCalls: [{ name: 'write', arguments: { path: 'a.txt', content: 'a\n' } }] };

let model: FakeProvider;
let store: Store;
beforeAll(async () => {
  model = await startFakeProvider({ policy });
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
  await model?.close();
});

describe('colony run --run-id', () => {
  it('refuses a malformed id, and a second start of an id already recorded', async () => {
    const repo = createUserRepo({ 'README.md': '# a\n' }, 'colony-run-id-').dir;
    const flags = [
      '--repo',
      repo,
      '--goal',
      'Write a.txt',
      ...fakeModelFlags(model.url),
      '--sandbox',
      'auto',
    ];
    const bad = await colony(['run', '--run-id', 'r-../x', ...flags], { env: NO_API_KEYS });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--run-id must look like r-<time36>-<6 hex digits>/);

    const runId = newRunId();
    const first = await colony(['run', '--run-id', runId, ...flags], { env: NO_API_KEYS });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`run ${runId} started`);
    const events = (await store.log.read(runId)).length;
    const requests = model.requests().length;

    const again = await colony(['run', '--run-id', runId, ...flags], { env: NO_API_KEYS });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`create run ${runId}: run already exists`);
    expect((await store.log.read(runId)).length).toBe(events);
    expect(model.requests().length).toBe(requests);
    expect((await store.runs.getRun(runId))?.status).toBe('succeeded');
  }, 180_000);
});
