import { DEFAULT_CONFIG } from '../../core/config.js';
import { createDemoRepo } from '../../demo/demo-repo.js';
import { DEMO_TEST_COMMAND } from '../../demo/solo-policy.js';
import { exitCodeFor } from '../../swarm/summary.js';
import { parseFlags, UsageError } from '../args.js';
import { runInForeground } from '../live-run.js';
import { prepareRun, recordNewRun } from '../new-run.js';
import { withStore } from '../store-access.js';

export const DEMO_HELP = `colony demo [solo] [--dir PARENT] [--json]

Copies a bundled example repository (three modules with failing tests) to a fresh folder and runs one
agent on it with the SCRIPTED model: real tools on a real git worktree, durably logged, but the
model's decisions are canned. Prints how to run the same goal with a real model.`;

const DEMO_GOAL = 'Make the failing tests pass (run them with `node --test test/`). Do not change the tests.';

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
  const which = positionals[0] ?? 'solo';
  if (which !== 'solo' || positionals.length > 1)
    throw new UsageError(`demo: unknown demo "${positionals.join(' ')}" (available: solo)`);

  const repo = createDemoRepo('demo-repo', values.dir);
  const say = (line: string) => {
    if (!values.json) process.stdout.write(`${line}\n`);
  };
  say('Colony demo (solo): one agent fixes a small repository with three failing tests.');
  say('NOTE: the model is SCRIPTED (offline, no API key): its decisions are canned, but every tool call,');
  say('      git operation, database write and test run below is real.');
  say(`repository: ${repo}\n`);

  const config = { ...DEFAULT_CONFIG, model: 'scripted', verify: DEMO_TEST_COMMAND, maxSteps: 30 };
  const prepared = await prepareRun({ repo, goal: DEMO_GOAL, config, scenario: 'solo-demo' }, process.env);
  return withStore(async (store) => {
    await recordNewRun(store, prepared.spec);
    const summary = await runInForeground({
      store,
      spec: prepared.spec,
      provider: prepared.provider,
      json: values.json ?? false,
      resumed: false,
    });
    say('\nThe same goal with a real model:');
    say(
      `  OPENAI_API_KEY=... npx colony run --repo ${repo} --model gpt-5-mini --goal "${DEMO_GOAL.replaceAll('`', '\\`')}" --verify "${DEMO_TEST_COMMAND}"`,
    );
    say(`  (or a local server: --model openai-chat:llama3.1:8b --base-url http://localhost:11434/v1)`);
    say(
      `Look at the result: git -C ${repo} diff main...${summary.resultBranch ?? `colony/${prepared.spec.runId}`}`,
    );
    return exitCodeFor(summary.status);
  });
}
