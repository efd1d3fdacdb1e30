/**
 * The owner's side of a fleet run (`colony run --workers`): it keeps the run's hub, integration queue
 * and finalize, serves the hub and the queue to workers (gateway.ts), and hands each agent session to
 * the fleet as one DBOS workflow on the shared queue; any worker with a free slot dequeues it. The
 * owner waits for sessions' ends with one batched status query per tick for all of them (a handle's
 * getResult per session would be a thousand pollers).
 */
import { DBOSClient, type WorkflowStatus } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { createRunSecret } from '../auth/index.js';
import type { AgentEnd } from '../run/agent-end.js';
import type { EndCause } from '../run/run-control.js';
import type { IntegrationPort } from '../workspace/integration/tools.js';
import { saveFleetRun, sessionEpochs, sessionKey, stopFleetRun } from './fleet-db.js';
import { type Gateway, startGateway } from './gateway.js';
import {
  DBOS_APP,
  FLEET_QUEUE,
  FLEET_VERSION,
  SESSION_WORKFLOW,
  type SessionEnd,
  type SessionInput,
  sessionWorkflowId,
} from './names.js';
import { isLoopbackHost, plainHttpProblem, readTlsPair, type TlsFiles } from './tls.js';

export interface FleetOwner {
  /** Serves the hub and the queue to workers (once the queue exists); returns the gateway's URL. */
  serve(run: { hubPath: string; queue: IntegrationPort }): Promise<string>;
  /** Hands the agent's session (a peer's life, or one `task` of a subagent) to the fleet; waits for its end. */
  runSession(agent: string, task?: string): Promise<AgentEnd>;
  /**
   * Tells workers the run ends: they stop its sessions. Its agents end as in-process: done when the
   * run succeeded (its goal was met), stopped otherwise.
   */
  stop(end: EndCause): Promise<void>;
  /** Cancels sessions no worker took yet, stops the gateway and the waits. */
  close(reason: string): Promise<void>;
  /**
   * This process no longer owns the run (its lock was lost: the database went away): from now on
   * stop and close write nothing to the fleet's database and cancel no session — the run is paused,
   * not ending, and its workers wait for the owner that resumes it. Only the gateway stops here.
   */
  abandon(): void;
}

export interface FleetOwnerOptions {
  runId: string;
  pool: pg.Pool;
  systemDatabaseUrl: string;
  /** Where the gateway listens (default 127.0.0.1, any port) and the URL workers use for it. */
  listenHost?: string;
  listenPort?: number;
  advertiseUrl?: string;
  /** The gateway serves HTTPS with this certificate and key (tls.ts). */
  tls?: TlsFiles;
  /** Plain HTTP on a non-loopback address is allowed (`--insecure-http`); refused otherwise. */
  insecureHttp?: boolean;
  log?: (line: string) => void;
}

const POLL_MS = 200;
/** How many times one session is handed to the fleet while each attempt ends before its agent starts. */
const SESSION_ATTEMPTS = 4;
const AGAIN_PAUSE_MS = 1000;

/** A session's end as the fleet reported it, and whether it ended before the agent started for a reason that may pass. */
interface SessionOutcome {
  end: AgentEnd;
  again: boolean;
}
const ENDED = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'] as const;
const CHUNK = 500;
/** After this long a session still not ended is named in a warning, with where DBOS has it (and again as long). */
const SLOW_SESSION_MS = 60_000;
const SLOW_NAMED = 8;

export async function openFleetOwner(options: FleetOwnerOptions): Promise<FleetOwner> {
  const { runId, pool } = options;
  const client = await DBOSClient.create({
    systemDatabaseUrl: options.systemDatabaseUrl,
    systemDatabaseSchemaName: 'dbos',
    applicationName: DBOS_APP,
    // Enqueues of a wide turn go through it at once (each a transaction of a few round trips).
    systemDatabasePoolSize: 16,
  });
  let gateway: Gateway | null = null;
  let abandoned = false;
  const waiting = new Map<
    string,
    { agent: string; since: number; resolve: (ended: SessionOutcome) => void }
  >();
  let timer: NodeJS.Timeout | null = null;
  let polling = false;
  let closed = false;
  let shut = false;

  const poll = async () => {
    if (polling || waiting.size === 0) return;
    polling = true;
    try {
      const ids = [...waiting.keys()];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const found = await client.listWorkflows({
          workflowIDs: ids.slice(i, i + CHUNK),
          status: [...ENDED],
          loadOutput: true,
          loadInput: false,
        });
        for (const status of found) settle(status);
      }
      await reportSlow();
    } catch (error) {
      options.log?.(`fleet: polling sessions failed (retrying): ${(error as Error).message}`);
    } finally {
      polling = false;
    }
  };
  /**
   * Sessions waited for longer than SLOW_SESSION_MS, named once per that interval with where DBOS has
   * them (queued, or running on which worker): a run that does not end says what it waits for.
   */
  let lastSlowReport = Date.now();
  const reportSlow = async () => {
    const now = Date.now();
    if (now - lastSlowReport < SLOW_SESSION_MS) return;
    const slow = [...waiting].filter(([, entry]) => now - entry.since >= SLOW_SESSION_MS);
    if (slow.length === 0) return;
    lastSlowReport = now;
    const statuses = await client.listWorkflows({
      workflowIDs: slow.slice(0, SLOW_NAMED).map(([id]) => id),
      loadOutput: false,
      loadInput: false,
    });
    options.log?.(slowSessionsLine(slow, statuses, now));
  };
  const settle = (status: WorkflowStatus) => {
    const entry = waiting.get(status.workflowID);
    if (!entry) return;
    waiting.delete(status.workflowID);
    if (status.status === 'SUCCESS') {
      const end = status.output as SessionEnd;
      entry.resolve({ end, again: !end.started });
      return;
    }
    const error =
      status.error instanceof Error ? status.error.message : String(status.error ?? status.status);
    entry.resolve({
      end: { agent: entry.agent, started: false, error: `its session ended ${status.status}: ${error}` },
      // Cancelled: an earlier owner of this run closed it before a worker took it.
      again: status.status === 'CANCELLED',
    });
  };

  /** Hands one attempt of the session to the fleet (the same id again returns the existing one). */
  const handOnce = async (
    agent: string,
    task: string | undefined,
    attempt: number,
  ): Promise<SessionOutcome> => {
    const input: SessionInput = {
      runId,
      agent,
      ...(task === undefined ? {} : { task }),
      ...(attempt > 1 ? { attempt } : {}),
    };
    const workflowID = sessionWorkflowId(runId, agent, task, attempt);
    const ended = new Promise<SessionOutcome>((resolve) =>
      waiting.set(workflowID, { agent, since: Date.now(), resolve }),
    );
    try {
      await client.enqueue(
        {
          queueName: FLEET_QUEUE,
          workflowName: SESSION_WORKFLOW,
          workflowID,
          appVersion: FLEET_VERSION,
          applicationName: DBOS_APP,
        },
        input,
      );
    } catch (error) {
      waiting.delete(workflowID);
      return {
        end: { agent, started: false, error: `could not hand it to the fleet: ${(error as Error).message}` },
        again: false,
      };
    }
    return ended;
  };

  return {
    async serve(run) {
      const tls = options.tls ? readTlsPair(options.tls) : null;
      if (tls && !tls.ok) throw new Error(tls.error);
      const listenHost = options.listenHost ?? '127.0.0.1';
      if (!tls && !options.insecureHttp && !isLoopbackHost(listenHost))
        throw new Error(
          plainHttpProblem(
            `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}`,
            false,
            'colony run',
          ) ?? 'plain HTTP on a non-loopback address needs --insecure-http',
        );
      const secret = createRunSecret();
      gateway = await startGateway({
        ...(tls ? { tls: tls.value } : {}),
        runId,
        hubPath: run.hubPath,
        secret,
        queue: run.queue,
        host: options.listenHost,
        port: options.listenPort,
        log: options.log,
        async authorize(claims) {
          if (claims.epoch === undefined) return 'a fleet token names its session epoch';
          const epochs = await sessionEpochs(pool, [{ runId, agent: claims.agent }]);
          const current = epochs.get(sessionKey(runId, claims.agent));
          return current === claims.epoch
            ? null
            : `the session of ${claims.agent} was taken over (epoch ${current ?? 'none'}, token ${claims.epoch})`;
        },
      });
      const url = options.advertiseUrl ?? gateway.url;
      const refused = plainHttpProblem(url, options.insecureHttp === true, 'colony run');
      if (refused) {
        await gateway.close();
        gateway = null;
        throw new Error(refused);
      }
      if (url.startsWith('http:') && !isLoopbackHost(new URL(url).hostname))
        options.log?.(
          `fleet: the hub and merge requests are served over plain HTTP at ${new URL(url).origin} ` +
            "(--insecure-http): agents' tokens and code cross the network unencrypted",
        );
      await saveFleetRun(pool, { runId, hubUrl: url, tokenSecret: secret });
      timer = setInterval(() => void poll(), POLL_MS);
      return url;
    },

    async runSession(agent, task) {
      for (let attempt = 1; ; attempt++) {
        if (closed) return { agent, started: false, error: 'the run ended first' };
        const { end, again } = await handOnce(agent, task, attempt);
        // A session that ended before its agent started did nothing (a worker that could not open
        // the run, an owner before this one that stopped or cancelled it): while this owner still
        // wants the agent, that end is not the agent's. Bounded: a reason that holds on every
        // worker (a bad profile) ends it after SESSION_ATTEMPTS.
        if (end.started || !again || closed || attempt >= SESSION_ATTEMPTS) return end;
        options.log?.(
          `fleet: ${sessionWorkflowId(runId, agent, task, attempt)} ended before ${agent} started ` +
            `(${end.error}); handing it to the fleet again (attempt ${attempt + 1} of ${SESSION_ATTEMPTS})`,
        );
        await new Promise((resolve) => setTimeout(resolve, AGAIN_PAUSE_MS));
      }
    },

    async stop(end) {
      closed = true;
      if (abandoned) return;
      await stopFleetRun(pool, runId, end).catch(() => {});
    },

    abandon() {
      abandoned = true;
      closed = true;
    },

    async close(reason) {
      if (shut) return;
      shut = true;
      closed = true;
      if (abandoned) {
        if (timer) clearInterval(timer);
        for (const [id, entry] of waiting) {
          waiting.delete(id);
          entry.resolve({
            end: { agent: entry.agent, started: false, error: `this process lost the run (${reason})` },
            again: false,
          });
        }
        await gateway?.close();
        await client.destroy().catch(() => {});
        return;
      }
      await stopFleetRun(pool, runId, { status: 'stopped', reason }).catch(() => {});
      await poll();
      if (timer) clearInterval(timer);
      if (waiting.size > 0) await client.cancelWorkflows([...waiting.keys()]).catch(() => {});
      for (const [id, entry] of waiting) {
        waiting.delete(id);
        entry.resolve({
          end: { agent: entry.agent, started: false, error: `the run ended first (${reason})` },
          again: false,
        });
      }
      await gateway?.close();
      await client.destroy();
    },
  };
}

/**
 * The warning for sessions waited for too long: each (up to SLOW_NAMED) with where DBOS has it and
 * how long it has been waited for, e.g. "r/peer-3 (running on worker:ps, 64 s)".
 */
export function slowSessionsLine(
  slow: ReadonlyArray<readonly [string, { since: number }]>,
  statuses: ReadonlyArray<Pick<WorkflowStatus, 'workflowID' | 'status' | 'executorId'>>,
  now: number,
): string {
  const where = new Map(statuses.map((s) => [s.workflowID, s]));
  const named = slow.slice(0, SLOW_NAMED).map(([id, entry]) => {
    const status = where.get(id);
    const place = !status
      ? 'not in the queue'
      : status.status === 'PENDING'
        ? `running on ${status.executorId ?? 'an unknown executor'}`
        : status.status === 'ENQUEUED'
          ? 'queued: no worker has taken it'
          : status.status.toLowerCase();
    return `${id} (${place}, ${Math.round((now - entry.since) / 1000)} s)`;
  });
  const more = slow.length > named.length ? ` and ${slow.length - named.length} more` : '';
  return `fleet: still waiting for ${slow.length} session(s): ${named.join(', ')}${more}`;
}
