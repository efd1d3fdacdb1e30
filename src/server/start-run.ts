/**
 * `POST /api/runs`: a run started from the dashboard. The body is checked by the library's one spec
 * builder (runner/build-spec.ts, as `colony run` checks its flags), so a bad repository or model is
 * refused with the builder's words and nothing starts. A good one is started as `colony run --run-id
 * ID …`, detached in its own process group (src/runner/run-process.ts, as `colony watch` starts its
 * runs), its output in $COLONY_HOME/serve/<id>.log; the answer waits until the run is recorded, or
 * until that process has ended without recording it (then its last lines are the error).
 * The server token is never in the run's environment.
 */
import { join } from 'node:path';
import { newRunId } from '../core/ids.js';
import { buildRunSpec, type SpecOptions } from '../runner/index.js';
import type { SandboxMode } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { startRunProcess } from '../runner/run-process.js';

/** The topologies the form offers (`planned` is orchestrated with a lead that writes programs). */
export const FORM_TOPOLOGIES = ['solo', 'peers', 'orchestrated', 'planned'] as const;
type FormTopology = (typeof FORM_TOPOLOGIES)[number];
const SANDBOXES: readonly SandboxMode[] = ['on', 'auto', 'off'];

/** What the dashboard's form sends (`POST /api/runs`). */
export interface StartRunRequest {
  repo: string;
  goal: string;
  model: string;
  topology: FormTopology;
  /** peers only. */
  agents?: number;
  budgetUsd?: number;
  budgetTokens?: number;
  verify?: string;
  sandbox?: SandboxMode;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** The body's shape (types and ranges); what it means is the spec builder's to check. */
export function parseStartRequest(body: Record<string, unknown>): Checked<StartRunRequest> {
  const text = (key: string): string | undefined =>
    typeof body[key] === 'string' && (body[key] as string).trim() !== ''
      ? (body[key] as string).trim()
      : undefined;
  const bad = (error: string): Checked<StartRunRequest> => ({ ok: false, error });
  for (const key of ['repo', 'goal', 'model', 'topology', 'verify', 'sandbox'])
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'string')
      return bad(`${key} must be text`);
  const repo = text('repo');
  if (!repo) return bad('repo is required (the path of a git repository on the server’s machine)');
  const goal = typeof body.goal === 'string' ? body.goal : '';
  const model = text('model');
  if (!model) return bad('model is required (a known model id or <protocol>:<model-name>)');
  const topology = text('topology') ?? 'solo';
  if (!(FORM_TOPOLOGIES as readonly string[]).includes(topology))
    return bad(`topology must be one of ${FORM_TOPOLOGIES.join(', ')}, got "${topology}"`);
  const number = (key: string, integer: boolean): Checked<number | undefined> => {
    const v = body[key];
    if (v === undefined || v === null || v === '') return { ok: true, value: undefined };
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      return { ok: false, error: `${key} must be a positive ${integer ? 'integer' : 'number'}` };
    return { ok: true, value: n };
  };
  const agents = number('agents', true);
  if (!agents.ok) return agents;
  if (topology === 'peers' && agents.value === undefined) return bad('peers needs agents (how many peers)');
  if (topology !== 'peers' && agents.value !== undefined)
    return bad(`agents is for the peers topology (a ${topology} run has its own agents)`);
  const budgetUsd = number('budgetUsd', false);
  if (!budgetUsd.ok) return budgetUsd;
  const budgetTokens = number('budgetTokens', true);
  if (!budgetTokens.ok) return budgetTokens;
  const sandbox = text('sandbox');
  if (sandbox !== undefined && !(SANDBOXES as readonly string[]).includes(sandbox))
    return bad(`sandbox must be one of ${SANDBOXES.join(', ')}, got "${sandbox}"`);
  const verify = text('verify');
  return {
    ok: true,
    value: {
      repo,
      goal,
      model,
      topology: topology as FormTopology,
      ...(agents.value !== undefined ? { agents: agents.value } : {}),
      ...(budgetUsd.value !== undefined ? { budgetUsd: budgetUsd.value } : {}),
      ...(budgetTokens.value !== undefined ? { budgetTokens: budgetTokens.value } : {}),
      ...(verify !== undefined ? { verify } : {}),
      ...(sandbox !== undefined ? { sandbox: sandbox as SandboxMode } : {}),
    },
  };
}

/** The request as the spec builder's options. */
function specOptions(r: StartRunRequest, runId: string): SpecOptions {
  return {
    runId,
    repo: r.repo,
    goal: r.goal,
    model: r.model,
    topology: r.topology === 'planned' ? 'orchestrated' : r.topology,
    ...(r.topology === 'planned' ? { leadDelegation: 'programs' as const } : {}),
    ...(r.agents !== undefined ? { agents: r.agents } : {}),
    ...(r.budgetUsd !== undefined ? { budgetUsd: r.budgetUsd } : {}),
    ...(r.budgetTokens !== undefined ? { budgetTokens: r.budgetTokens } : {}),
    ...(r.verify !== undefined ? { verify: r.verify } : {}),
    ...(r.sandbox !== undefined ? { sandbox: r.sandbox } : {}),
  };
}

/** The same request as `colony run` flags (besides --run-id, --repo, --goal and --json). */
function runArgs(r: StartRunRequest): string[] {
  return [
    `--model=${r.model}`,
    '--topology',
    r.topology,
    ...(r.agents !== undefined ? ['--agents', String(r.agents)] : []),
    ...(r.budgetUsd !== undefined ? ['--budget-usd', String(r.budgetUsd)] : []),
    ...(r.budgetTokens !== undefined ? ['--budget-tokens', String(r.budgetTokens)] : []),
    ...(r.verify !== undefined ? [`--verify=${r.verify}`] : []),
    ...(r.sandbox !== undefined ? ['--sandbox', r.sandbox] : []),
  ];
}

/** The server's environment without any variable holding the server token. */
export function runEnvironment(env: NodeJS.ProcessEnv, token: string): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => !value?.includes(token)));
}

export type StartOutcome =
  | { ok: true; runId: string; recorded: boolean }
  | { ok: false; status: 400 | 500; error: string };

export interface StartDeps {
  store: Store;
  token: string;
  env: NodeJS.ProcessEnv;
  /** How long to wait for the run to be recorded before answering without it (default 60 s). */
  recordTimeoutMs?: number;
}

export async function startRunFromRequest(r: StartRunRequest, deps: StartDeps): Promise<StartOutcome> {
  const runId = newRunId();
  const built = await buildRunSpec(specOptions(r, runId), deps.env);
  if (!built.ok) return { ok: false, status: 400, error: built.error };
  const started = startRunProcess({
    runId,
    goal: r.goal,
    repo: built.spec.repo,
    runArgs: runArgs(r),
    folder: join(deps.store.home, 'serve'),
    env: runEnvironment(deps.env, deps.token),
  });
  const end = Date.now() + (deps.recordTimeoutMs ?? 60_000);
  for (;;) {
    if (await deps.store.runs.getRun(runId)) return { ok: true, runId, recorded: true };
    const code = started.exitCode();
    if (code !== null) {
      // It may have recorded the run just before ending.
      if (await deps.store.runs.getRun(runId)) return { ok: true, runId, recorded: true };
      const tail = started.outputTail().trim();
      return {
        ok: false,
        status: code === 2 ? 400 : 500,
        error: `colony run exited ${code} before recording the run${tail ? `: ${tail}` : ''}`,
      };
    }
    if (Date.now() > end) return { ok: true, runId, recorded: false };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
