/**
 * External agent CLIs on fleet workers: a peers run with `--workers --agent-cli 'cmd:…'` whose
 * CLI-driven peer runs on a worker — the worker hosts its MCP server and model proxy, its merges go
 * to the owner's queue through the gateway — next to a built-in peer on the fleet.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MODULES, modulePolicy } from '../external-agent/policy.js';
import { colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, runEvents } from './fleet-harness.js';

const MINI_AGENT = join(import.meta.dirname, '..', 'external-agent', 'mini-agent.mjs');
const fleet = fleetFixture({ model: { policy: modulePolicy } });

describe('colony run --workers --agent-cli', () => {
  it('runs a CLI-driven peer on a worker beside a built-in one: both land, the CLI is metered there', async () => {
    const files: Record<string, string> = { 'README.md': '# modules\n' };
    for (const m of MODULES.slice(0, 2)) files[`src/${m}/value.txt`] = 'broken\n';
    const {
      url,
      workers: [worker],
      repo,
      env,
    } = await fleet.start('cli_fleet', {
      workers: ['wcli'],
      slots: 2,
      files,
      repoPrefix: 'colony-cli-fleet-',
    });
    const run = await colony(
      [
        'run',
        '--workers',
        '--topology',
        'peers',
        '--agents',
        '2',
        '--repo',
        repo.dir,
        '--goal',
        'fix every module',
        ...fakeModelFlags(fleet.fakes.model.url),
        '--verify',
        '! grep -rqx broken src',
        '--merge-verify',
        'true',
        '--sandbox',
        'off',
        '--agent-cli',
        `cmd:node ${MINI_AGENT}`,
        '--agent-cli-peers',
        'peer-2',
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}\n${worker.stderr()}`).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    // Both peers ran on the worker; only peer-2 through its CLI.
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(placed.map((e) => [e.agent, e.data.worker]).sort()).toEqual([
      ['peer-1', 'wcli'],
      ['peer-2', 'wcli'],
    ]);
    const cli = events.filter((e) => e.kind === 'agent.cli');
    expect(new Set(cli.map((e) => e.agent))).toEqual(new Set(['peer-2']));
    expect(cli.map((e) => e.data.event)).toEqual(expect.arrayContaining(['started', 'exited']));
    // The CLI's model calls went through the worker's proxy and were logged as its steps.
    const responses = events.filter((e) => e.kind === 'model.response' && e.agent === 'peer-2');
    expect(responses.length).toBe(5);
    // Its merge went through the owner's queue and landed; both modules are fixed on the result.
    const landed = events.filter((e) => e.kind === 'merge.landed').map((e) => e.agent);
    expect(landed.sort()).toEqual(['peer-1', 'peer-2']);
    for (const m of MODULES.slice(0, 2))
      expect(
        execFileSync('git', ['show', `colony/${runId}:src/${m}/value.txt`], {
          cwd: repo.dir,
          encoding: 'utf8',
        }),
      ).toBe(`fixed ${m}\n`);
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => [e.agent, e.data.status]).sort()).toEqual([
      ['peer-1', 'done'],
      ['peer-2', 'done'],
    ]);
  }, 240_000);
});
