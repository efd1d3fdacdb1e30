/** Runs a workflow file as a real run in-process: real Postgres, git, agent loop; the model scripted. */

import { prepareWorkflowRun } from '../../src/cli/commands/workflow.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createScriptedProvider, type ScriptedPolicy } from '../../src/model/providers/scripted.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import type { RunSummary } from '../../src/view/summary.js';

export interface WorkflowRunResult {
  runId: string;
  summary: RunSummary;
  events: StoredEvent[];
  calls: number;
  result: StoredEvent<'workflow.finished'>['data'] | undefined;
}

export async function runWorkflowFile(
  store: Store,
  options: {
    file: string;
    repo: string;
    policy: ScriptedPolicy;
    args?: Record<string, string>;
    verify?: string;
    mergeVerify?: string;
    latencyMs?: number;
    concurrency?: number;
    approveMerges?: boolean;
    /** Called once the run is recorded, before it executes (e.g. to act on its log meanwhile). */
    onRecorded?: (runId: string) => void;
  },
): Promise<WorkflowRunResult> {
  const prepared = await prepareWorkflowRun({
    file: options.file,
    repo: options.repo,
    args: options.args ?? {},
    config: { ...DEFAULT_CONFIG, model: 'scripted', maxSteps: 20, verify: options.verify },
    // The scripted model needs a bundled scenario to validate; the test's own policy replaces it.
    scenario: 'solo-demo',
    mergeVerify: options.mergeVerify,
    concurrency: options.concurrency,
    approveMerges: options.approveMerges,
  });
  const provider = createScriptedProvider(options.policy, { latencyMs: options.latencyMs });
  await recordNewRun(store, prepared.spec);
  options.onRecorded?.(prepared.spec.runId);
  const executed = await executeRun({
    store,
    spec: prepared.spec,
    provider,
    env: process.env,
    signal: new AbortController().signal,
    resumed: false,
  });
  if (!executed.ok) throw new Error(executed.error);
  const events = await store.log.read(prepared.spec.runId);
  const finished = events.find((e) => e.kind === 'workflow.finished') as
    | StoredEvent<'workflow.finished'>
    | undefined;
  return {
    runId: prepared.spec.runId,
    summary: executed.summary,
    events,
    calls: provider.calls(),
    result: finished?.data,
  };
}

/** The task of a request: its first user message. */
export function taskOf(request: { messages: Array<{ role: string; content: string }> }): string {
  return request.messages.find((m) => m.role === 'user')?.content ?? '';
}

export function ofKind<K extends StoredEvent['kind']>(events: StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e) => e.kind === kind) as StoredEvent<K>[];
}
