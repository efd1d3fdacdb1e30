/**
 * What the peers tests share: a peers RunSpec with the test defaults, running it through executeRun
 * with a scripted policy, the scripted peers' view of their own tool calls, and events by kind.
 */
import { recordNewRun } from '../../src/cli/new-run.js';
import type { EventKind, StoredEvent } from '../../src/core/events.js';
import { createScriptedProvider, type ScriptedPolicy } from '../../src/model/index.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import type { RunSummary } from '../../src/view/summary.js';

/**
 * A peers run on `repo` with the scripted model, contained in the bubblewrap sandbox; `fields` name the
 * run, its goal, check and size.
 */
export function peersSpec(
  repo: { dir: string; base: string },
  fields: Pick<RunSpec, 'runId' | 'agents' | 'goal' | 'verify'> & Partial<RunSpec>,
): RunSpec {
  return {
    topology: 'peers',
    repo: repo.dir,
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: 'scripted',
    customModels: [],
    maxSteps: 300,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 60_000,
    maxRetries: 0,
    bashTimeoutS: 60,
    // As `colony run` does by default: bash, setup, merge checks and verify in the sandbox.
    sandbox: { enabled: true, network: false, passEnv: [] },
    ...fields,
  };
}

/** Records the run and executes it to the end with `policy` (a failure to run throws). */
export async function runScriptedPeers(
  store: Store,
  spec: RunSpec,
  policy: ScriptedPolicy,
  latencyMs: number,
): Promise<RunSummary> {
  await recordNewRun(store, spec);
  const result = await executeRun({
    store,
    spec,
    provider: createScriptedProvider(policy, { latencyMs }),
    env: process.env,
    signal: new AbortController().signal,
    resumed: false,
  });
  if (!result.ok) throw new Error(result.error);
  return result.summary;
}

export type Call = { name: string; arguments: string };

/** The tool calls this peer has made so far (arguments as the JSON text the model sent). */
export function callsSoFar(request: ModelRequest): Call[] {
  return request.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls as Call[]) : []));
}

/** A turn with one tool call. */
export const call = (name: string, args: Record<string, unknown> = {}) => ({
  toolCalls: [{ name, arguments: args }],
});

/** `of(kind)`: the events of one kind, typed. */
export function eventsOf(events: readonly StoredEvent[]) {
  return <K extends EventKind>(kind: K) => events.filter((e) => e.kind === kind) as StoredEvent<K>[];
}

/** The id merge_request answered with (peers submit and move on: "Merge request N is queued …"). */
export function queuedMr(result: string): number | null {
  const found = /Merge request (\d+) is queued/.exec(result);
  return found ? Number(found[1]) : null;
}
