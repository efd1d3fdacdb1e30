/**
 * `colony demo review`: the map-reduce review workflow (examples/workflows/review.ts) on a copy of
 * examples/review-repo with the scripted model; prints the ranked risks, CriticalSteps, parallelism
 * and cost.
 */
import { join } from 'node:path';
import { isKind } from '../../core/events.js';
import { packageRoot } from '../../core/package-root.js';
import { createDemoRepo } from '../../demo/demo-repo.js';
import { scriptedNote } from '../../demo/demo-report.js';
import { workflowCriticalPath } from '../../view/critical-path.js';
import { formatCost } from '../../view/format.js';
import { prepareWorkflowRun } from '../commands/workflow.js';
import { DEMO_CONFIG } from '../config.js';
import { runNewInForeground } from '../foreground-run.js';

interface RankedRisk {
  title: string;
  file: string;
  line: number;
  severity: string;
  reportedBy: string[];
}

export async function reviewDemo(
  dir: string | undefined,
  json: boolean,
  say: (line: string) => void,
): Promise<number> {
  const repo = createDemoRepo('review-repo', dir, 'review');
  const file = join(packageRoot(), 'examples', 'workflows', 'review.ts');
  say('Colony demo (review workflow): four read-only explorers review four areas in parallel and return');
  say('JSON risks; the program merges them, removes duplicates and ranks them by strength of evidence.');
  const note = scriptedNote(
    'file read',
    'database write, schema check (one answer is invalid and gets repaired) and merge',
  );
  for (const line of note) say(line);
  say(`program: ${file}\nrepository: ${repo}\n`);
  const prepared = await prepareWorkflowRun({
    file,
    repo,
    args: {},
    config: { ...DEMO_CONFIG, model: 'scripted', maxSteps: 20 },
    goal: 'Review the repository: four areas, risks merged, de-duplicated and ranked',
    scenario: 'review-demo',
  });
  return runNewInForeground(prepared, { json, quietEvents: true }, async (store, summary) => {
    const events = await store.log.read(prepared.spec.runId);
    const finished = events.find(isKind('workflow.finished'));
    const value = (finished?.data.value ?? {}) as { risks?: RankedRisk[]; reported?: number };
    const risks = value.risks ?? [];
    const path = workflowCriticalPath(events);
    say(`\n${value.reported ?? 0} risks reported, ${risks.length} after de-duplication, ranked by evidence:`);
    risks.forEach((r, i) => {
      const by = r.reportedBy.length > 1 ? `  (found by ${r.reportedBy.join(' and ')})` : '';
      say(`  ${i + 1}. [${r.severity}] ${r.file}:${r.line}  ${r.title}${by}`);
    });
    say(
      `\nCriticalSteps ${path.criticalSteps} (stages: ${path.stages.map((s) => `${s.stage} ${s.criticalSteps}`).join(', ')}), ` +
        `total steps ${path.totalSteps}, parallelism ${path.parallelism.toFixed(2)}, ` +
        `cost ${formatCost(summary.costUsd, summary.modelCalls)}, wall-clock ${(summary.wallClockMs / 1000).toFixed(1)} s`,
    );
    say('\nThe same review with a real model:');
    say(`  OPENAI_API_KEY=... npx colony workflow ${file} --repo ${repo} --model gpt-5-mini`);
  });
}
