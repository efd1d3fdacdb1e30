/**
 * A fleet worker's agents reach the run's integration queue through the owner's gateway
 * (gateway.ts): the same IntegrationPort the merge tools use where the queue lives, so an agent's
 * tools are the same on a worker as in the owner's process.
 */
import { fleetRequestJson } from '../fleet/fleet-request.js';
import { err, ok, type Result } from '../lang/result.js';
import type { IntegrationPort } from '../workspace/integration/tools.js';
import type {
  EnqueueResult,
  MergeRequestInput,
  MergeRequestReply,
  MergeRequestResult,
  MergeStatus,
} from '../workspace/integration/types.js';
import { whileOwnerAway } from './owner-wait.js';

export interface IntegrationClientOptions {
  /** The owner's gateway, e.g. http://10.0.0.1:7070 (read per call: a resumed owner moves it). */
  baseUrl(): string;
  /**
   * Which owner serves the run now (a number that changes when a resumed owner takes over). A request
   * still waited for when it changes is sent again: the new owner's queue takes it up under its id.
   */
  owner?(): number;
  runId: string;
  token(): string;
  /** Ends waits when the agent stops. */
  signal?: AbortSignal;
  /** The CA bundle an https:// owner's certificate must chain to (`colony worker --ca`). */
  ca?: Buffer;
}

const REQUEST_TIMEOUT_MS = 60_000;

export function integrationClient(options: IntegrationClientOptions): IntegrationPort {
  const call = async <T>(
    path: string,
    init: { method?: 'POST'; body?: string } = {},
  ): Promise<{ status: number; body: T }> => {
    const signals = [AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(options.signal ? [options.signal] : [])];
    const base = `${options.baseUrl()}/fleet/${options.runId}/merge-requests`;
    return fleetRequestJson<T>(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${options.token()}`, 'content-type': 'application/json' },
      signal: AbortSignal.any(signals),
      ...(options.ca ? { ca: options.ca } : {}),
    });
  };

  const status = async (mr: number, wait = false): Promise<MergeStatus> => {
    const res = await call<MergeStatus & { error?: string }>(`/${mr}${wait ? '?wait=1' : ''}`);
    if (res.status !== 200) throw new Error(`merge status ${mr}: ${res.body.error ?? res.status}`);
    return res.body;
  };

  /**
   * What this process asked for, by MR id, with the owner it asked: a resumed owner's queue does not
   * hold a request its predecessor accepted and had not decided (peers' requests it takes up itself,
   * `resumePending`; a parked one only with a person's approval), so a request still waited for is
   * sent to it again. The queue answers a resubmission of a tip without an outcome with its old id (the
   * way a replayed merge_request does in-process); one decided meanwhile keeps its outcome under `mr`.
   */
  const sent = new Map<number, { input: MergeRequestInput; owner: number }>();
  const ownerNow = () => options.owner?.() ?? 0;

  /** Waits for the outcome (long polls of ≤ 20 s each; a failed poll is retried after a second). */
  const outcome = async (mr: number): Promise<MergeRequestResult> => {
    for (;;) {
      try {
        const now = await status(mr, true);
        if (now.status === 'done') return now.result;
        if (now.status === 'unknown')
          return { status: 'error', mr: null, error: `there is no merge request ${mr}` };
        const asked = sent.get(mr);
        if (asked && asked.owner !== ownerNow()) await enqueue(asked.input);
      } catch (error) {
        if (options.signal?.aborted)
          return { status: 'error', mr: null, error: `stopped while waiting for ${mr}` };
        void error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  // Who approves a verified request before it lands, as the owner's queue answered (docs/fleet.md):
  // 'auto' until the first answer; the text merge_request answers with depends on it.
  let approval: IntegrationPort['approval'] = 'auto';

  async function enqueue(input: MergeRequestInput): Promise<EnqueueResult> {
    if (!input.commit) return { ok: false, error: 'a fleet merge request names its commit' };
    const body = JSON.stringify({ commit: input.commit, note: input.note });
    // An owner that is away (killed, or resumed with a new secret this worker has not read yet)
    // is waited for: the request is sent again once it answers.
    const answered = await whileOwnerAway(
      async (): Promise<Result<EnqueueResult & { approval?: IntegrationPort['approval'] }>> => {
        try {
          const res = await call<EnqueueResult & { error?: string; approval?: IntegrationPort['approval'] }>(
            '',
            { method: 'POST', body },
          );
          if (res.status === 200 || res.status === 409) return ok(res.body);
          return err(`returned error: ${res.status}: ${res.body.error ?? "the run's owner refused it"}`);
        } catch (error) {
          return err(`the run's owner could not be reached: ${(error as Error).message}`);
        }
      },
      { ...(options.signal ? { signal: options.signal } : {}) },
    );
    if (!answered.ok) return { ok: false, error: answered.error };
    const { approval: mode, ...result } = answered.value;
    if (mode === 'auto' || mode === 'manual' || mode === 'human') approval = mode;
    // The owner that answered (a new one, when it changed while this waited for an answer).
    if (result.ok) sent.set(result.mr, { input, owner: ownerNow() });
    return result;
  }

  return {
    get approval() {
      return approval;
    },
    enqueue,
    status: (mr) => status(mr),
    outcome,
    // A person's approval ('human', peers) is not waited for by merge_request: peers submit and move
    // on. A subagent's ('manual') is: the outcome, however long the decision takes.
    reply: (mr): Promise<MergeRequestReply> => outcome(mr),
  };
}
