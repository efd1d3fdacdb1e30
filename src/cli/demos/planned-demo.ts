/**
 * `colony demo planned`: a scripted lead on `--topology planned` writes one program (run_workflow):
 * read-only reviewers mapped over the folders of a copy of examples/demo-repo, then one writer per
 * finding, each landing through the integration queue, then the tests on hub main; the run's verify
 * checks the result. Prints the program, its findings and landed fixes, and CriticalSteps, all read
 * from the event log.
 */
import { isKind } from '../../core/events.js';
import { createDemoRepo } from '../../demo/demo-repo.js';
import { resultDiffHint, scriptedNote } from '../../demo/demo-report.js';
import { PEERS_DEMO_MERGE_VERIFY } from '../../demo/peers-policy.js';
import { PLANNED_DEMO_PROGRAM } from '../../demo/planned-policy.js';
import { DEMO_TEST_COMMAND } from '../../demo/solo-policy.js';
import { formatCost } from '../../view/format.js';
import { computeMetrics } from '../../view/metrics.js';
import { DEMO_CONFIG } from '../config.js';
import { runNewInForeground } from '../foreground-run.js';
import { prepareRun } from '../new-run.js';

export const PLANNED_DEMO_GOAL =
  'Review every folder of the repository for bugs with read-only reviewers, then fix what they find ' +
  '(each fix lands through the integration queue) so that `node --test test/` passes. Do not change the tests.';

interface ProgramValue {
  findings?: string[];
  landed?: number;
  testsPass?: boolean;
}

export async function plannedDemo(
  dir: string | undefined,
  json: boolean,
  say: (line: string) => void,
): Promise<number> {
  const repo = createDemoRepo('demo-repo', dir, 'planned');
  say('Colony demo (planned): the lead delegates only by writing a program (run_workflow). Its program');
  say('maps a read-only review over the repository’s folders, then starts one writer per finding; each');
  say('fix lands through the integration queue, and the tests run on the merged result.');
  for (const line of scriptedNote(
    'tool call',
    'type check, merge, git operation, database write and test run',
  ))
    say(line);
  say(`repository: ${repo}\n`);
  say('The program the lead writes:');
  for (const line of PLANNED_DEMO_PROGRAM.split('\n')) say(`  | ${line}`);
  say('');
  const config = {
    ...DEMO_CONFIG,
    model: 'scripted',
    verify: DEMO_TEST_COMMAND,
    maxSteps: 15,
  };
  const prepared = await prepareRun(
    {
      repo,
      goal: PLANNED_DEMO_GOAL,
      config,
      scenario: 'planned-demo',
      topology: 'orchestrated',
      leadDelegation: 'programs',
      mergeVerify: PEERS_DEMO_MERGE_VERIFY,
    },
    process.env,
  );
  return runNewInForeground(prepared, { json }, async (store, summary) => {
    const events = await store.log.read(prepared.spec.runId);
    const m = computeMetrics(events);
    const value = (events.find(isKind('workflow.finished'))?.data.value ?? {}) as ProgramValue;
    say('');
    say(`The review found ${value.findings?.length ?? 0} bug(s):`);
    for (const finding of value.findings ?? []) say(`  - ${finding}`);
    say(
      `fixes landed: ${value.landed ?? 0}; tests on the merged result: ${value.testsPass ? 'pass' : 'fail'}`,
    );
    say(
      `CriticalSteps ${m.criticalSteps} (lead turns: ${m.leadTurns.map((t) => t.criticalSteps).join(' + ')}), total steps ${m.totalSteps}`,
    );
    say(`cost ${formatCost(m.run.costUsd, m.totalSteps)}`);
    say('\nThe same goal with a real model (the lead writes its own program):');
    say(
      `  OPENAI_API_KEY=... npx colony run --topology planned --repo ${repo} --model gpt-5-mini --goal "${PLANNED_DEMO_GOAL.replaceAll('`', '\\`')}" --verify "${DEMO_TEST_COMMAND}" --merge-verify '${PEERS_DEMO_MERGE_VERIFY}'`,
    );
    say(resultDiffHint(repo, summary));
  });
}
