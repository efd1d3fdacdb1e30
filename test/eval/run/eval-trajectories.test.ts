/**
 * `colony eval run --trajectories` (runEval's `trajectories`): each trial's run exported as its
 * orchestrator trajectory with r_perf = the trial's graded score. Real runs of the built CLI with the
 * simulated (`sim:`) model on a bundled task: an orchestrated arm (a lead and its subagents) and a
 * solo arm (no lead: no decisions, an episode all the same).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval, trajectoryFile } from '../../../src/eval/run/index.js';
import { parseTrialLines } from '../../../src/eval/trial-record.js';
import type { EpisodeRecord, TrajectoryRecord } from '../../../src/report/trajectory/index.js';
import type { Store } from '../../../src/store/index.js';
import { openTestStore } from '../../helpers/db.js';

const BUNDLED = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});

describe('colony eval run --trajectories', () => {
  const root = mkdtempSync(join(tmpdir(), 'colony-eval-trajectories-'));
  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    await store.close();
  });

  it("writes every trial's trajectory with the trial's score as r_perf", async () => {
    const suite = join(root, 'suite');
    cpSync(join(BUNDLED, 'textkit-slugify'), join(suite, 'textkit-slugify'), { recursive: true });
    const arms = join(root, 'arms.json');
    writeFileSync(
      arms,
      JSON.stringify({
        v: 1,
        arms: [
          { name: 'solo', topology: 'solo', size: 1, solo: true, model: 'sim:p=1' },
          { name: 'orch', topology: 'orchestrated', size: 2, model: 'sim:p=1' },
        ],
      }),
    );
    const out = join(root, 'out');
    const lines: string[] = [];
    const result = await runEval({
      suite,
      arms,
      trials: 1,
      out,
      sandbox: 'off',
      log: (l) => lines.push(l),
      trajectories: { readEvents: (runId) => store.log.read(runId) },
    });
    if (!result.ok) throw new Error(result.error);
    expect(result.value.ran, lines.join('\n')).toBe(2);
    expect(lines.filter((l) => l.startsWith('!'))).toEqual([]);
    const { records } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    expect(records.map((r) => [r.arm, r.outcome])).toEqual([
      ['solo', 'pass'],
      ['orch', 'pass'],
    ]);
    for (const record of records) {
      const file = trajectoryFile(out, record);
      expect(file).toBe(join(out, 'trajectories', record.arm, `textkit-slugify-${record.trial}.jsonl`));
      const exported = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as TrajectoryRecord);
      const episode = exported.at(-1) as EpisodeRecord;
      expect(episode).toMatchObject({ type: 'episode', runId: record.runId, rPerfSource: 'eval' });
      expect(episode.rewards.rPerf).toBe(record.score);
      // The same CriticalSteps the trial record took from the run summary.
      expect(episode.criticalSteps).toBe(record.criticalSteps);
      const decisions = exported.filter((r) => r.type === 'decision');
      if (record.arm === 'solo') {
        expect(episode.lead).toBeNull();
        expect(decisions).toEqual([]);
        expect(episode.rewards.rFinish).toBeNull();
      } else {
        expect(episode.lead).toBe('lead');
        expect(decisions.length).toBe(episode.decisions);
        expect(decisions.length).toBeGreaterThan(0);
        expect(episode.delegation.tasksAssigned).toBeGreaterThan(0);
      }
    }
  }, 240_000);
});
