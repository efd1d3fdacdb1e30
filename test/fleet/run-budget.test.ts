/**
 * A budget binds the run, not each process: `--budget-tokens` on a peers run whose agents are spread
 * over two fleet workers stops the run at the limit in total (each worker reads the run's spend from the
 * shared log before a call), at most one call per agent over — not at the limit per worker.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, runEvents } from './fleet-harness.js';

const TOKENS_PER_CALL = 1000;
const BUDGET = 12_000;
const AGENTS = 4;

/** Peers whose requests reached the model (their system prompts name them). */
const started = new Set<string>();

/**
 * Every peer keeps working (a harmless bash call a turn) until Colony stops it. No call is answered
 * before every peer has asked once: with two slots per worker, all four running means both workers
 * host peers before any token is spent (else the first worker's peers could spend the budget alone).
 */
const tireless: ScriptedPolicy = async (request) => {
  started.add(request.system);
  for (let waited = 0; started.size < AGENTS && waited < 60_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    toolCalls: [{ name: 'bash', arguments: { command: 'true' } }],
    usage: { input: TOKENS_PER_CALL - 10, cachedInput: 0, output: 10 },
  };
};

const fleet = fleetFixture({ model: { policy: tireless, latencyMs: 100 } });

describe('a budget on a fleet run', () => {
  it('binds the whole run across two workers: the total stays within one call per agent of the limit', async () => {
    const { url, repo, env } = await fleet.start('run_budget', {
      workers: ['wb1', 'wb2'],
      slots: 2,
      files: { 'README.md': '# budget\n' },
    });
    const run = await colony(
      [
        'run',
        '--workers',
        '--topology',
        'peers',
        '--agents',
        String(AGENTS),
        '--repo',
        repo.dir,
        '--goal',
        'keep busy',
        ...fakeModelFlags(fleet.fakes.model.url),
        '--budget-tokens',
        String(BUDGET),
        '--max-steps',
        '200',
        // Never met, so only the budget ends the run (a passing verify could end it as goal_met first).
        '--verify',
        'false',
        '--sandbox',
        'off',
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    if (!run.stdout.trim()) throw new Error(`no output (exit ${run.code}): ${run.stderr.slice(-3000)}`);
    const summary = lastJsonLine(run.stdout);
    const runId = String(summary.runId);
    expect(runId, `${run.stderr}\n${run.stdout.slice(-2000)}`).not.toBe('undefined');
    const events = await runEvents(url, runId);
    // The agents really were on both workers.
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(new Set(placed.map((e) => e.data.worker))).toEqual(new Set(['wb1', 'wb2']));
    const spent = events
      .filter((e) => e.kind === 'model.response')
      .reduce((sum, e) => {
        const usage = (e.data.turn as { usage: Record<string, number | undefined> }).usage;
        return (
          sum + (usage.input ?? 0) + (usage.cachedInput ?? 0) + (usage.cacheWrite ?? 0) + (usage.output ?? 0)
        );
      }, 0);
    // The limit was reached, and passed by at most one call per agent (each may have one in flight).
    expect(spent).toBeGreaterThanOrEqual(BUDGET - TOKENS_PER_CALL);
    expect(spent).toBeLessThanOrEqual(BUDGET + AGENTS * TOKENS_PER_CALL);
    const stopped = events.filter(
      (e) => e.kind === 'agent.finished' && e.data.stopReason === 'budget_tokens',
    );
    expect(stopped.length).toBeGreaterThan(0);
  }, 240_000);
});
