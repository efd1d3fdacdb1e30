import { createDemoRepo } from '../../demo/demo-repo.js';
import { resultDiffHint, scriptedNote } from '../../demo/demo-report.js';
import { PEERS_DEMO_FINAL_VERIFY, PEERS_DEMO_MERGE_VERIFY } from '../../demo/peers-policy.js';
import { formatPeersDemoSummary, peersDemoStats } from '../../demo/peers-summary.js';
import { DEMO_TEST_COMMAND } from '../../demo/solo-policy.js';
import { parseFlags, UsageError } from '../args.js';
import { DEMO_CONFIG } from '../config.js';
import { runNewInForeground } from '../foreground-run.js';
import { prepareRun } from '../new-run.js';

export const DEMO_HELP = `colony demo [peers|solo|review|orchestrated|planned] [--dir PARENT] [--json]

Copies a bundled example repository to a fresh folder and runs agents on it with the SCRIPTED model:
real tools on real git worktrees, durably logged, but the model's decisions are canned. Prints how to
run the same goal with a real model.

  peers   (default) four identical peers (no orchestrator) fix six modules: they claim modules,
          settle claim conflicts by direct message, record a failed attempt as FAIL, resolve a
          merge conflict, and land each fix through the integration queue; prints agents, merges,
          entries by kind, tokens, cost, wall-clock
  solo    one agent fixes three modules with failing tests
  review  a workflow program: four read-only explorers review four areas in parallel; their JSON
          risks are merged, de-duplicated and ranked; prints CriticalSteps, parallelism, cost
  orchestrated
          a lead creates three read-only subagents and assigns two waves of tasks; prints
          CriticalSteps, parallelism, finish rate, cost
  planned a lead (--topology planned) writes a program: read-only reviewers mapped over the
          repository's folders, then one writer per finding, each fix landing through the
          integration queue; the tests pass on the result; prints the findings and CriticalSteps`;

const DEMO_GOAL = 'Make the failing tests pass (run them with `node --test test/`). Do not change the tests.';
const PEERS_AGENTS = 4;
const PEERS_GOAL =
  'Make the failing tests pass. Each module under src/ is independent and has its own test ' +
  '(test/<module>.test.js, run with `node --test test/<module>.test.js`): claim one module at a time. ' +
  'Do not change the tests.';

export async function demoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'demo',
  );
  if (values.help) {
    process.stdout.write(`${DEMO_HELP}\n`);
    return 0;
  }
  const which = positionals[0] ?? 'peers';
  if (
    (which !== 'solo' &&
      which !== 'peers' &&
      which !== 'review' &&
      which !== 'orchestrated' &&
      which !== 'planned') ||
    positionals.length > 1
  )
    throw new UsageError(
      `demo: unknown demo "${positionals.join(' ')}" (available: peers, solo, review, orchestrated, planned)`,
    );
  const say = (line: string) => {
    if (!values.json) process.stdout.write(`${line}\n`);
  };
  if (which === 'orchestrated') {
    const { orchestratedDemo } = await import('../demos/orchestrated-demo.js');
    return orchestratedDemo(values.dir, values.json ?? false, say);
  }
  if (which === 'planned') {
    const { plannedDemo } = await import('../demos/planned-demo.js');
    return plannedDemo(values.dir, values.json ?? false, say);
  }
  if (which === 'review' && positionals.length === 1)
    return (await import('../demos/review-demo.js')).reviewDemo(values.dir, values.json ?? false, say);
  return which === 'peers'
    ? peersDemo(values.dir, values.json ?? false, say)
    : soloDemo(values.dir, values.json ?? false, say);
}

async function soloDemo(
  dir: string | undefined,
  json: boolean,
  say: (line: string) => void,
): Promise<number> {
  const repo = createDemoRepo('demo-repo', dir, 'solo');
  say('Colony demo (solo): one agent fixes a small repository with three failing tests.');
  for (const line of scriptedNote('tool call', 'git operation, database write and test run')) say(line);
  say(`repository: ${repo}\n`);

  const config = { ...DEMO_CONFIG, model: 'scripted', verify: DEMO_TEST_COMMAND, maxSteps: 30 };
  const prepared = await prepareRun({ repo, goal: DEMO_GOAL, config, scenario: 'solo-demo' }, process.env);
  return runNewInForeground(prepared, { json }, (_store, summary) => {
    say('\nThe same goal with a real model:');
    say(
      `  OPENAI_API_KEY=... npx colony run --repo ${repo} --model gpt-5-mini --goal "${DEMO_GOAL.replaceAll('`', '\\`')}" --verify "${DEMO_TEST_COMMAND}"`,
    );
    say(`  (or a local server: --model openai-chat:llama3.1:8b --base-url http://localhost:11434/v1)`);
    say(resultDiffHint(repo, summary));
  });
}

async function peersDemo(
  dir: string | undefined,
  json: boolean,
  say: (line: string) => void,
): Promise<number> {
  const repo = createDemoRepo('peers-repo', dir, 'peers');
  say(
    `Colony demo (peers): ${PEERS_AGENTS} identical peers, no orchestrator, fix six modules with failing tests.`,
  );
  for (const line of scriptedNote(
    'tool call',
    'claim, message, merge, git operation, database write and test run',
  ))
    say(line);
  say(`Each merge is checked with: ${PEERS_DEMO_MERGE_VERIFY}`);
  say(
    `  (the full suite fails until every module is fixed); the final verify on main: ${PEERS_DEMO_FINAL_VERIFY}`,
  );
  say(`repository: ${repo}\n`);

  const config = { ...DEMO_CONFIG, model: 'scripted', verify: PEERS_DEMO_FINAL_VERIFY, maxSteps: 80 };
  const prepared = await prepareRun(
    {
      repo,
      goal: PEERS_GOAL,
      config,
      scenario: 'peers-demo',
      topology: 'peers',
      agents: PEERS_AGENTS,
      mergeVerify: PEERS_DEMO_MERGE_VERIFY,
    },
    process.env,
  );
  return runNewInForeground(prepared, { json }, async (store, summary) => {
    const events = await store.log.read(prepared.spec.runId);
    say('');
    for (const line of formatPeersDemoSummary(summary, peersDemoStats(events))) say(line);
    say('\nThe same goal with a real model:');
    say(
      `  OPENAI_API_KEY=... npx colony run --topology peers --agents ${PEERS_AGENTS} --repo ${repo} --model gpt-5-mini --goal "${PEERS_GOAL.replaceAll('`', '\\`')}" --verify "${PEERS_DEMO_FINAL_VERIFY}" --merge-verify '${PEERS_DEMO_MERGE_VERIFY}'`,
    );
    say(resultDiffHint(repo, summary));
  });
}
