/**
 * A fleet worker's agents reach the run's integration queue through the owner's gateway
 * (gateway.ts): the same IntegrationPort the merge tools use where the queue lives, so an agent's
 * tools are the same on a worker as in the owner's process.
 */
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
  runId: string;
  token(): string;
  /** Ends waits when the agent stops. */
  signal?: AbortSignal;
}

const REQUEST_TIMEOUT_MS = 60_000;

export function integrationClient(options: IntegrationClientOptions): IntegrationPort {
  const call = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
    const signals = [AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(options.signal ? [options.signal] : [])];
    const base = `${options.baseUrl()}/fleet/${options.runId}/merge-requests`;
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${options.token()}`, 'content-type': 'application/json' },
      signal: AbortSignal.any(signals),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  const status = async (mr: number, wait = false): Promise<MergeStatus> => {
    const res = await call<MergeStatus & { error?: string }>(`/${mr}${wait ? '?wait=1' : ''}`);
    if (res.status !== 200) throw new Error(`merge status ${mr}: ${res.body.error ?? res.status}`);
    return res.body;
  };

  /** Waits for the outcome (long polls of ≤ 20 s each; a failed poll is retried after a second). */
  const outcome = async (mr: number): Promise<MergeRequestResult> => {
    for (;;) {
      try {
        const now = await status(mr, true);
        if (now.status === 'done') return now.result;
        if (now.status === 'unknown')
          return { status: 'error', mr: null, error: `there is no merge request ${mr}` };
      } catch (error) {
        if (options.signal?.aborted)
          return { status: 'error', mr: null, error: `stopped while waiting for ${mr}` };
        void error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  return {
    // Approvals by a person or integrators are not offered to fleet runs (refused at run start).
    approval: 'auto',
    async enqueue(input: MergeRequestInput): Promise<EnqueueResult> {
      if (!input.commit) return { ok: false, error: 'a fleet merge request names its commit' };
      const body = JSON.stringify({ commit: input.commit, note: input.note });
      // An owner that is away (killed, or resumed with a new secret this worker has not read yet)
      // is waited for: the request is sent again once it answers.
      const sent = await whileOwnerAway(
        async (): Promise<Result<EnqueueResult>> => {
          try {
            const res = await call<EnqueueResult & { error?: string }>('', { method: 'POST', body });
            if (res.status === 200 || res.status === 409) return ok(res.body);
            return err(`returned error: ${res.status}: ${res.body.error ?? "the run's owner refused it"}`);
          } catch (error) {
            return err(`the run's owner could not be reached: ${(error as Error).message}`);
          }
        },
        { ...(options.signal ? { signal: options.signal } : {}) },
      );
      return sent.ok ? sent.value : { ok: false, error: sent.error };
    },
    status: (mr) => status(mr),
    outcome,
    reply: (mr): Promise<MergeRequestReply> => outcome(mr),
  };
}
