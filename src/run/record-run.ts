/** A new run's record: the runs row and its `run.started` event holding the versioned spec. */
import { hostname } from 'node:os';
import type { RunEndpoint } from '../core/events.js';
import { err, ok, type Result } from '../lang/result.js';
import type { Store } from '../store/index.js';
import type { RunSpec } from './run-spec.js';
import { storedRunSpec } from './run-spec-schema.js';

/** `endpoints`: where the run's models are called, shown in run.started (and so in `run --json`). */
export async function recordRun(
  store: Store,
  spec: RunSpec,
  endpoints?: RunEndpoint[],
): Promise<Result<void>> {
  const config = storedRunSpec(spec);
  const created = await store.runs.createRun({
    runId: spec.runId,
    topology: spec.topology,
    goal: spec.goal,
    repo: spec.repo,
    pid: process.pid,
    host: hostname(),
    config,
  });
  if (!created.ok) return err(created.error);
  await store.log.append({
    runId: spec.runId,
    agent: null,
    kind: 'run.started',
    data: {
      topology: spec.topology,
      goal: spec.goal,
      repo: spec.repo,
      base: spec.baseCommit,
      model: spec.model,
      config,
      ...(endpoints ? { endpoints } : {}),
    },
  });
  return ok(undefined);
}
