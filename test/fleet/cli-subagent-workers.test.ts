/**
 * CLI-driven subagents on fleet workers: an orchestrated run with `--workers --agent-cli 'cmd:…'`
 * whose lead (Colony's own loop, with the owner) gives its coder subagent two tasks in turn. Each task
 * is a session on the worker, which starts the CLI (the mini agent) and serves it MCP and the metering
 * model proxy from its own process; its merges reach the owner's queue through the gateway.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orchestratedCliPolicy, SUBAGENT, taskPrompt } from '../external-agent/orchestrated-policy.js';
import { colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, runEvents } from './fleet-harness.js';

const MINI_AGENT = join(import.meta.dirname, '..', 'external-agent', 'mini-agent.mjs');
const MODULES = ['alpha', 'beta'];
const fleet = fleetFixture({ model: { policy: orchestratedCliPolicy(MODULES) } });

describe('colony run --topology orchestrated --workers --agent-cli', () => {
  it("runs a CLI-driven subagent's tasks on a worker: the worker hosts the CLI, its merges land", async () => {
    const files: Record<string, string> = { 'README.md': '# modules\n' };
    for (const m of MODULES) files[`src/${m}/value.txt`] = 'broken\n';
    const {
      url,
      workers: [worker],
      repo,
      env,
    } = await fleet.start('cli_subagent_fleet', {
      workers: ['wsub'],
      slots: 2,
      files,
      repoPrefix: 'colony-cli-subagent-fleet-',
    });
    const run = await colony(
      [
        'run',
        '--workers',
        '--topology',
        'orchestrated',
        '--repo',
        repo.dir,
        '--goal',
        'fix every module',
        ...fakeModelFlags(fleet.fakes.model.url),
        // Passes after the first task already: each merge lands (the queue checks with it too).
        '--verify',
        'grep -qx "fixed alpha" src/alpha/value.txt',
        '--sandbox',
        'off',
        '--agent-cli',
        `cmd:node ${MINI_AGENT}`,
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    const context = `${run.stderr}\n${run.stdout.slice(-3000)}\n${worker.stderr()}`;
    expect(run.code, context).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    // Each task was a session on the worker; the lead stayed with the owner.
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(placed.map((e) => [e.agent, e.data.worker])).toEqual([
      [SUBAGENT, 'wsub'],
      [SUBAGENT, 'wsub'],
    ]);
    // The CLI drove the subagent there: one process per task, each exiting 0, with the MCP tools.
    const cli = events.filter((e) => e.kind === 'agent.cli' && e.agent === SUBAGENT);
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'exited', 'started', 'exited']);
    const started = events.find((e) => e.kind === 'agent.started' && e.agent === SUBAGENT);
    // The merge tools and, as in the owner's process, the team's shared context and claims.
    expect(started?.data.tools).toEqual([
      'merge_request',
      'sync',
      'context_post',
      'context_read',
      'context_unfold',
      'claim',
      'release',
    ]);
    expect(
      events.filter((e) => e.kind === 'task.started' && e.agent === SUBAGENT).map((e) => e.data.prompt),
    ).toEqual(MODULES.map(taskPrompt));
    // Its model calls went through the worker's proxy and were logged as its steps.
    const calls = events
      .filter((e) => e.kind === 'model.response' && e.agent === SUBAGENT)
      .flatMap((e) => (e.data.turn as { toolCalls: { name: string }[] }).toolCalls.map((c) => c.name));
    expect(calls).toEqual(['write', 'merge_request', 'write', 'merge_request']);
    // Both tasks answered the lead, both merges landed, the result has both fixes.
    const finished = events.filter((e) => e.kind === 'task.finished');
    expect(finished.map((e) => e.data.status)).toEqual(['done', 'done']);
    const landed = events.filter((e) => e.kind === 'merge.landed');
    expect(landed.map((e) => e.agent)).toEqual([SUBAGENT, SUBAGENT]);
    for (const m of MODULES)
      expect(
        execFileSync('git', ['show', `colony/${runId}:src/${m}/value.txt`], {
          cwd: repo.dir,
          encoding: 'utf8',
        }),
      ).toBe(`fixed ${m}\n`);
    expect(JSON.stringify(events)).not.toContain('colony_at_');
  }, 240_000);
});
