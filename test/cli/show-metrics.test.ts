/**
 * `colony show RUN` (built CLI, real Postgres) on a peers-like run of 1,000 agents written to the
 * event log: the team line, a per-role / per-agent token table with cached input apart, only the top
 * 20 agents by tokens plus a line counting the rest, and every agent in `--json`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { colony } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';

const AGENTS = 1_000;
let store: Store;
let runId: string;

beforeAll(async () => {
  store = await openTestStore();
  runId = testRunId('show');
  const created = await store.runs.createRun({
    runId,
    topology: 'peers',
    goal: 'g',
    repo: '/tmp/none',
    pid: process.pid,
    host: 'test',
    config: {},
  });
  if (!created.ok) throw new Error(created.error);
  const events: EventInput[] = [
    {
      runId,
      agent: null,
      kind: 'run.started',
      data: { topology: 'peers', goal: 'g', repo: '/tmp/none', base: 'x', model: 'm', config: {} },
    },
  ];
  for (let i = 1; i <= AGENTS; i++) {
    const agent = `peer-${i}`;
    events.push({
      runId,
      agent,
      kind: 'agent.started',
      data: { profile: 'coder', model: 'm', task: 't', system: 's', tools: [], maxSteps: 5 },
    });
    // peer-i spends i uncached input tokens and 1000·i cached ones, so the top 20 are peer-1000 … peer-981.
    events.push({
      runId,
      agent,
      kind: 'model.response',
      data: {
        step: 1,
        turn: {
          text: 'done',
          toolCalls: [],
          stopReason: 'end',
          usage: { input: i, cachedInput: 1000 * i, cacheWrite: 0, output: 7, reasoning: 0 },
          costUsd: null,
          model: 'm',
        },
        latencyMs: 1,
        requestMessages: 1,
      },
    });
    events.push({
      runId,
      agent,
      kind: 'agent.finished',
      data: {
        status: i % 4 === 0 ? 'failed' : 'done',
        stopReason: 'answered',
        reason: '',
        steps: 1,
        finalText: '',
      },
    });
  }
  for (let i = 0; i < events.length; i += 500) await store.log.appendMany(events.slice(i, i + 500));
});
afterAll(async () => {
  await store.close();
});

describe('colony show: team metrics', () => {
  it('prints the team line and the top 20 agents by tokens, cached input apart', async () => {
    const out = await colony(['show', runId]);
    expect(out.code).toBe(0);
    const text = out.stdout.split('\ntimeline:')[0] ?? '';
    expect(text).toMatch(
      /CriticalSteps 1 · total steps 1000 · parallelism 1000\.00 · finish rate 75\.0% \(750\/1000\)/,
    );
    expect(text).toContain('coordination share 0.0% of input, 0.0% of uncached input');
    expect(text).toMatch(/role coder \(1000\)\s+1000\s+500500\s+500500000\s+7000\s+unpriced/);
    const agentRows = text.split('\n').filter((l) => /^\s+peer-\d+ \[coder\]/.test(l));
    expect(agentRows).toHaveLength(20);
    expect(agentRows[0]).toMatch(/peer-1000 \[coder\]\s+1\s+1000\s+1000000\s+7\s+unpriced/);
    expect(agentRows[19]).toMatch(/peer-981 \[coder\]/);
    expect(text).toContain('… and 980 more agent(s)');
  });

  it('has every agent and the metric fields in --json', async () => {
    const out = await colony(['show', runId, '--json']);
    expect(out.code).toBe(0);
    const summary = JSON.parse(out.stdout.trim());
    expect(Object.keys(summary.perAgent)).toHaveLength(AGENTS);
    expect(summary.perAgent['peer-3']).toEqual({
      role: 'coder',
      model: 'm',
      maxSteps: 5,
      steps: 1,
      input: 3,
      cachedInput: 3000,
      output: 7,
      costUsd: null,
    });
    expect(summary).toMatchObject({
      criticalSteps: 1,
      totalSteps: 1000,
      parallelism: 1000,
      finishRate: 0.75,
      coordinationShareOfInput: 0,
      coordinationShareOfUncachedInput: 0,
    });
  });

  it('points from the team line to its explanation, which --help of show and compare give', async () => {
    const text = (await colony(['show', runId])).stdout;
    expect(text).toMatch(/team: CriticalSteps .*\n\s+\(what these numbers mean: colony show --help\)/);
    for (const command of ['show', 'compare']) {
      const help = (await colony([command, '--help'])).stdout;
      for (const term of [
        'CriticalSteps:',
        'parallelism:',
        'coordination share:',
        'finish rate:',
        'cached input:',
      ])
        expect(help, `${command} --help: ${term}`).toMatch(new RegExp(`^  ${term} \\S`, 'm'));
      expect(
        help.split('\n').every((line) => line.length <= 100),
        `${command} --help fits 100 columns`,
      ).toBe(true);
    }
  });
});
