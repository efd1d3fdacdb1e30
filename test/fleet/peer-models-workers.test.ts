/**
 * Per-peer models and step caps hold on fleet workers too: `--workers --peer-models peer-2=MODEL
 * --peer-max-steps …` hosts both peers on a `colony worker`, which calls each peer's own model (its
 * provider from the run's catalog on the worker) and stops each at its own cap.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { colony, lastJsonLine } from '../helpers/cli.js';
import { call } from '../topology/peers-spec.js';
import { fleetFixture, runEvents } from './fleet-harness.js';

const CAPS = { 'peer-1': 2, 'peer-2': 4 } as const;

/** Every peer keeps reading the shared context: only its step cap ends it. */
const tireless: ScriptedPolicy = () => call('context_read');

const fleet = fleetFixture({ model: { policy: tireless } });

describe('per-peer models on fleet workers', () => {
  it("calls each peer's own model from the worker and binds each peer's own cap", async () => {
    const fake = fleet.fakes.model;
    const { url, repo, env } = await fleet.start('peer_models', {
      workers: ['wm1'],
      slots: 2,
      files: { 'README.md': '# models\n' },
      // Both models reach the fake provider through the protocol's base URL, on the owner and the worker.
      env: { OPENAI_BASE_URL: fake.url },
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
        'keep reading',
        '--model',
        'openai-chat:fake-a',
        '--peer-models',
        'peer-2=openai-chat:fake-b',
        '--peer-max-steps',
        `peer-1=${CAPS['peer-1']},peer-2=${CAPS['peer-2']}`,
        // Never met: the peers' caps end the run.
        '--verify',
        'false',
        '--sandbox',
        'off',
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    if (!run.stdout.trim()) throw new Error(`no output (exit ${run.code}): ${run.stderr.slice(-3000)}`);
    const runId = String(lastJsonLine(run.stdout).runId);
    const events = await runEvents(url, runId);
    const context = `${run.stderr.slice(-2000)}\n${JSON.stringify(events.slice(-10))}`;
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(new Set(placed.map((e) => e.agent)), context).toEqual(new Set(['peer-1', 'peer-2']));

    const wire = fake.requests().map((r) => ({
      peer: /Your peer ID is (peer-\d+)\.$/.exec(r.request?.system ?? '')?.[1],
      model: (r.body as { model?: string }).model,
    }));
    for (const [peer, model] of [
      ['peer-1', 'fake-a'],
      ['peer-2', 'fake-b'],
    ] as const) {
      const own = wire.filter((w) => w.peer === peer);
      expect(own.map((w) => w.model)).toEqual(Array(CAPS[peer]).fill(model));
      const started = events.filter((e) => e.kind === 'agent.started' && e.agent === peer);
      expect(started.map((e) => [e.data.model, e.data.maxSteps])).toEqual([
        [`openai-chat:${model}`, CAPS[peer]],
      ]);
      const finished = events.filter((e) => e.kind === 'agent.finished' && e.agent === peer);
      expect(finished.map((e) => [e.data.stopReason, e.data.steps])).toEqual([['max_steps', CAPS[peer]]]);
    }
  }, 240_000);
});
