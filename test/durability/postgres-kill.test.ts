/**
 * kill -9 of the embedded Postgres in the middle of a run: the run notices, stops writing and ends
 * with a clear message; once the database is back, `colony resume` finishes it with the same result
 * as an uninterrupted run. The run uses a Colony home of its own (its own embedded Postgres), never
 * the suite's shared one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPaths } from '../../src/store/embedded-paths.js';
import { createDurabilityPolicy, durabilityRepoFiles } from '../fake-provider/scenarios-durability.js';
import { startFakeProvider } from '../fake-provider/server.js';
import { cliEnv, ensureBuilt, git, makeRepo, parseEventLine, startColony } from './harness.js';

const home = mkdtempSync(join(tmpdir(), 'colony-pg-kill-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('kill -9 of the embedded Postgres mid-run', () => {
  it('ends the run with a clear error, and colony resume finishes it once the database is back', async () => {
    await ensureBuilt();
    const fake = await startFakeProvider({
      policy: createDurabilityPolicy('overwrite'),
      latencyMs: 150,
      record: false,
    });
    const repo = await makeRepo(durabilityRepoFiles());
    const env = { ...cliEnv(), COLONY_HOME: home };
    const args = [
      'run',
      '--repo',
      repo.dir,
      '--goal',
      'durability',
      '--model',
      'openai-chat:fake',
      '--base-url',
      fake.url,
      '--verify',
      'node --check src/ledger.js',
      '--json',
    ];
    const run = startColony(args, env);
    await new Promise<void>((resolve) => {
      run.onLine((line) => {
        const event = parseEventLine(line);
        if (event?.kind === 'tool.finished' && event.step === 3) resolve();
      });
    });
    const pid = Number(readFileSync(join(embeddedPaths(home).data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    const ended = await run.exited;
    const runId = String(await run.runId);
    // The run noticed (its lock's connection dropped), stopped, and said how to go on.
    expect(ended.code).toBe(1);
    expect(run.stderr()).toContain(`run ${runId} paused: the database connection holding the run's lock`);
    expect(run.stderr()).toContain(`colony resume ${runId}`);
    // The next command starts the database again; resume finishes the run from its log.
    const resumed = startColony(['resume', runId, '--json'], env);
    const done = await resumed.exited;
    await fake.close();
    expect(done.code, resumed.stderr()).toBe(0);
    const summary = JSON.parse(resumed.lines.at(-1) ?? '{}') as { status?: string; steps?: number };
    expect(summary).toMatchObject({ status: 'succeeded', steps: 10 });
    const ledger = await git(repo.dir, 'show', `colony/${runId}:src/ledger.js`);
    expect(ledger).toContain('export function average');
    const verified = startColony(['verify', runId], env);
    expect((await verified.exited).code).toBe(0);
    expect(verified.lines.join('\n')).toMatch(/intact/);
  }, 180_000);
});
