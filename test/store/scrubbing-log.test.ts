import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScrubber, secretValuesFromEnv } from '../../src/core/secrets.js';
import type { Store } from '../../src/store/index.js';
import { scrubbingLog } from '../../src/store/scrubbing-log.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('scrubbing log', () => {
  it('scrubs every event at the store boundary: model errors, setup output (base64 too), URL passwords', async () => {
    const key = 'sk-ant-0123456789abcdefXYZ';
    const env = { ANTHROPIC_API_KEY: key, DATABASE_URL: 'postgres://app:db-secret-99@h:5432/d' };
    const log = scrubbingLog(store.log, createScrubber(secretValuesFromEnv(env)));
    const runId = testRunId('scrub');
    await log.append({
      runId,
      agent: 'a',
      kind: 'model.error',
      data: { step: 1, kind: 'auth', message: `401: invalid x-api-key ${key}`, attempts: 1 },
    });
    await log.appendMany([
      {
        runId,
        agent: 'a',
        kind: 'setup.finished',
        data: {
          command: 'env | base64',
          exitCode: 0,
          output: Buffer.from(`ANTHROPIC_API_KEY=${key}\n`).toString('base64'),
          durationMs: 3,
        },
      },
      {
        runId,
        agent: null,
        kind: 'warning',
        data: { message: 'connecting to postgres://someone:other-pass@10.0.0.1/x and db-secret-99' },
      },
    ]);
    const stored = JSON.stringify(await store.log.read(runId));
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(Buffer.from(key).toString('base64').slice(4, 20));
    expect(stored).not.toContain('db-secret-99');
    expect(stored).not.toContain('other-pass');
    expect(stored.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(4);
  });
});
