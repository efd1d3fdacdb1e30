import { DEFAULT_PLAN_OPTIONS, formatPlan, planRun, taskGraphOf } from '../../eval/plan/index.js';
import { numberFlag, onePositional, parseFlags, UsageError } from '../args.js';
import { requireRun, withStore } from '../store-access.js';

export const PLAN_HELP = `colony plan RUN [--json] [--sizes 1,2,4,8,16] [--seed N] [--samples N]

How big a team the recorded run's work could use (docs/eval.md, "colony plan"): its task graph
(orchestrated: lead turns and assigned tasks; other runs: one task per agent), work and span, per team
size the Brent bounds, a critical-path-first list schedule (tasks whose landed files overlap never run
together), Monte-Carlo p10/p50/p90 makespan and cost, and the recommended size. Read-only.`;

function sizesFlag(value: string | undefined): number[] {
  if (value === undefined) return [...DEFAULT_PLAN_OPTIONS.sizes];
  const sizes = value.split(',').map((s) => numberFlag(s.trim(), 'sizes', 'int') ?? 0);
  return [...new Set(sizes)].sort((a, b) => a - b);
}

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      json: { type: 'boolean' },
      sizes: { type: 'string' },
      seed: { type: 'string' },
      samples: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'plan',
  );
  if (values.help) {
    process.stdout.write(`${PLAN_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'plan');
  const sizes = sizesFlag(values.sizes);
  if (sizes.length === 0) throw new UsageError('plan: --sizes needs at least one team size');
  const options = {
    ...DEFAULT_PLAN_OPTIONS,
    sizes,
    seed: numberFlag(values.seed, 'seed', 'int') ?? DEFAULT_PLAN_OPTIONS.seed,
    samples: numberFlag(values.samples, 'samples', 'int') ?? DEFAULT_PLAN_OPTIONS.samples,
  };
  return withStore(async (store) => {
    await requireRun(store, runId);
    const report = planRun(taskGraphOf(runId, await store.log.read(runId)), options);
    process.stdout.write(`${values.json ? JSON.stringify(report) : formatPlan(report)}\n`);
    return 0;
  });
}
