/**
 * `colony demo orchestrated`: a scripted lead creates three read-only subagents and runs the issue's
 * worked example (tasks of 4, 7, 2 steps, then 5, 5) on a copy of examples/demo-repo; prints
 * CriticalSteps, parallelism, finish rate and cost, all computed from the event log.
 */

import { createDemoRepo } from '../../demo/demo-repo.js';
import { scriptedNote } from '../../demo/demo-report.js';
import { formatCost } from '../../view/format.js';
import { computeMetrics } from '../../view/metrics.js';
import { DEMO_CONFIG } from '../config.js';
import { runNewInForeground } from '../foreground-run.js';
import { prepareRun } from '../new-run.js';

/** The demo's goal without its scripted plan: what a real lead would be asked. */
const ORCHESTRATED_REAL_GOAL =
  'Inspect the repository with a team of read-only subagents and report which modules are broken and why.';

export const ORCHESTRATED_DEMO_GOAL =
  'Inspect the repository with a team of read-only subagents. plan: a:4,b:7,c:2 / a:5,b:5';

export async function orchestratedDemo(
  dir: string | undefined,
  json: boolean,
  say: (line: string) => void,
): Promise<number> {
  const repo = createDemoRepo('demo-repo', dir, 'orchestrated');
  say('Colony demo (orchestrated): a lead creates three subagents and assigns two waves of tasks; the');
  say('tasks of one lead turn run in parallel and the lead sees only their results.');
  for (const line of scriptedNote('tool call', 'git operation and database write')) say(line);
  say(`repository: ${repo}\n`);
  const config = { ...DEMO_CONFIG, model: 'scripted', maxSteps: 15 };
  const prepared = await prepareRun(
    { repo, goal: ORCHESTRATED_DEMO_GOAL, config, scenario: 'orchestrated-demo', topology: 'orchestrated' },
    process.env,
  );
  return runNewInForeground(prepared, { json }, async (store) => {
    const m = computeMetrics(await store.log.read(prepared.spec.runId));
    say('');
    say(
      `CriticalSteps ${m.criticalSteps} (lead turns: ${m.leadTurns.map((t) => t.criticalSteps).join(' + ')})`,
    );
    say(`total steps ${m.totalSteps}, parallelism ${m.parallelism.toFixed(2)}`);
    say(
      `tasks ${m.tasksDone}/${m.tasksAssigned} done, agents finished ${m.agentsFinished}/${m.agentsStarted}`,
    );
    say('\nThe same kind of team with a real model (the lead plans the tasks itself):');
    say(
      `  OPENAI_API_KEY=... npx colony run --topology orchestrated --repo ${repo} --model gpt-5-mini --goal "${ORCHESTRATED_REAL_GOAL}"`,
    );
    say(`  (or a local server: --model openai-chat:llama3.1:8b --base-url http://localhost:11434/v1)`);
    say(
      `cost ${formatCost(m.run.costUsd, m.totalSteps)}, tokens in ${m.run.tokens.input} (cached ${m.run.tokens.cachedInput}), out ${m.run.tokens.output}, coordination share ${(m.coordinationShareOfInput * 100).toFixed(0)}% of input (${(m.coordinationShareOfUncachedInput * 100).toFixed(0)}% of uncached input)`,
    );
  });
}
