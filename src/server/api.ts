/**
 * The JSON API: runs, a run's view, agents, events, shared context, messages, claims, merge requests
 * and metrics, what needs a person across runs, the models a new run may use (reads), and the user's
 * actions: start a run, send a message, approve or reject a merge request, stop a run.
 * Every read is computed from the event log (plus the context table for an entry's detail).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Coordination, createCoordination, USER_SENDER } from '../coord/index.js';
import type { ContextKind, EventKind, ShownRunStatus } from '../core/events.js';
import { KNOWN_MODELS } from '../model/index.js';
import { interruptedReason, interruptedRunIds, shownStatus } from '../run/interrupted.js';
import { requestRunStop } from '../run/stop.js';
import type { RunRecord, Store } from '../store/index.js';
import { checkUserMessage } from '../topology/team/recipients.js';
import {
  agentRow,
  claimItem,
  contextItem,
  mergeItem,
  messageItem,
  toCompactView,
} from '../view/compact-view.js';
import { viewAgents, viewEndMs } from '../view/run-view.js';
import { approveFromOutside, rejectFromOutside } from '../workspace/integration/index.js';
import { mergeDiffRoutes } from './api-merge-diff.js';
import { taskRoutes } from './api-tasks.js';
import { intParam, readJsonBody, sendError, sendJson } from './http-util.js';
import type { NeedsYou } from './needs-you.js';
import { listRunItems } from './run-list.js';
import type { RunTracker } from './run-tracker.js';
import type { SseStreams } from './sse.js';
import { FORM_TOPOLOGIES, parseStartRequest, startRunFromRequest } from './start-run.js';

export interface ApiDeps {
  store: Store;
  tracker: RunTracker;
  /** What waits for a person across recent runs (folds kept between requests). */
  needsYou: NeedsYou;
  /** The server's SSE streams (cap and back-pressure). */
  streams: SseStreams;
  /** Lazily created coordination services (one LISTEN connection per server). */
  coordination: () => Promise<Coordination>;
  /** The server token: kept out of the environment of runs started from the page. */
  token: string;
  /** The server's environment: a run started from the page gets it (keys, base URLs), minus the token. */
  env: NodeJS.ProcessEnv;
}

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: string[],
  deps: ApiDeps,
) => Promise<void> | void;

export interface Route {
  method: 'GET' | 'POST' | 'PATCH';
  pattern: RegExp;
  handler: Handler;
}

const SEG = '([^/]+)';

async function runOr404(deps: ApiDeps, res: ServerResponse, runId: string): Promise<boolean> {
  const run = await deps.store.runs.getRun(runId);
  if (!run) sendError(res, 404, `no run ${runId}`);
  return run !== null;
}

/**
 * A run's status as shown: the runs row is authoritative while the log says running (a stop of an
 * orphaned run sets it there too), and a running run that no process executes is interrupted.
 */
async function runStatus(deps: ApiDeps, run: RunRecord, logged: string): Promise<ShownRunStatus> {
  if (logged !== 'running') return logged as ShownRunStatus;
  const interrupted = await interruptedRunIds(deps.store, [run]);
  return shownStatus(run.runId, run.status, interrupted);
}

const routes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/api\/needs-you$/,
    handler: async (_req, res, _url, _p, deps) => {
      sendJson(res, 200, { items: await deps.needsYou.items() });
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/models$/,
    handler: (_req, res) => {
      sendJson(res, 200, {
        models: KNOWN_MODELS.map((m) => ({ id: m.id, protocol: m.protocol, priced: m.prices !== null })),
        topologies: FORM_TOPOLOGIES,
      });
    },
  },
  {
    method: 'POST',
    pattern: /^\/api\/runs$/,
    handler: async (req, res, _url, _p, deps) => {
      const body = await readJsonBody(req);
      if (!body.ok) return sendError(res, 400, body.error);
      const request = parseStartRequest(body.value);
      if (!request.ok) return sendError(res, 400, request.error);
      const started = await startRunFromRequest(request.value, {
        store: deps.store,
        token: deps.token,
        env: deps.env,
      });
      if (!started.ok) return sendError(res, started.status, started.error);
      sendJson(res, 201, started);
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/runs$/,
    handler: async (_req, res, url, _p, deps) => {
      const runs = await deps.store.runs.listRuns(intParam(url.searchParams.get('limit'), 100, 1, 1000));
      const interrupted = await interruptedRunIds(deps.store, runs);
      sendJson(res, 200, { runs: await listRunItems(deps.store.pool, runs, interrupted) });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}$`),
    handler: async (_req, res, _url, [runId = ''], deps) => {
      const run = await deps.store.runs.getRun(runId);
      if (!run) return sendError(res, 404, `no run ${runId}`);
      const view = toCompactView(await deps.tracker.state(runId), Date.now());
      const status = await runStatus(deps, run, view.status);
      sendJson(res, 200, {
        ...view,
        status,
        ...(status === 'interrupted' ? { reason: interruptedReason(runId) } : {}),
        repo: run.repo,
      });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/events$`),
    handler: async (_req, res, url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      const kinds = url.searchParams.get('kinds');
      const events = await deps.store.log.read(runId, {
        afterSeq: intParam(url.searchParams.get('after'), 0, 0, Number.MAX_SAFE_INTEGER),
        limit: intParam(url.searchParams.get('limit'), 1000, 1, 10_000),
        agent: url.searchParams.get('agent') ?? undefined,
        kinds: kinds ? (kinds.split(',') as EventKind[]) : undefined,
      });
      sendJson(res, 200, { events, lastSeq: events.at(-1)?.seq ?? null });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/stream$`),
    handler: async (req, res, url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      // Over the cap: 503 with Retry-After (nothing awaited between this check and the stream's start).
      if (!deps.streams.admit(res)) return;
      deps.streams.stream(req, res, url, runId, { log: deps.store.log, tracker: deps.tracker });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/agents$`),
    handler: async (_req, res, _url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      sendJson(res, 200, { agents: toCompactView(await deps.tracker.state(runId), Date.now()).agents });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/agents/${SEG}$`),
    handler: async (_req, res, url, [runId = '', rawName = ''], deps) => {
      const run = await deps.store.runs.getRun(runId);
      if (!run) return sendError(res, 404, `no run ${runId}`);
      const name = decodeURIComponent(rawName);
      const state = await deps.tracker.state(runId);
      const agent = viewAgents(state, viewEndMs(state, Date.now())).find((a) => a.name === name);
      if (!agent) return sendError(res, 404, `run ${runId} has no agent ${name}`);
      const transcript = await deps.store.log.read(runId, {
        agent: name,
        afterSeq: intParam(url.searchParams.get('after'), 0, 0, Number.MAX_SAFE_INTEGER),
        limit: intParam(url.searchParams.get('limit'), 5000, 1, 20_000),
      });
      sendJson(res, 200, {
        agent: agentRow(agent),
        model: agent.model ?? '',
        branch: agent.branch,
        commits: agent.commits.map((c) => ({ ...c, ts: new Date(c.tMs).toISOString() })),
        stopReason: agent.stopReason,
        finishStatus: agent.finishStatus,
        runStatus: await runStatus(deps, run, state.status),
        transcript,
      });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/context$`),
    handler: async (_req, res, url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      const kinds = url.searchParams.get('kind')?.split(',') as ContextKind[] | undefined;
      const all = (await deps.tracker.state(runId)).context;
      const entries = kinds ? all.filter((e) => kinds.includes(e.kind)) : all;
      const limit = intParam(url.searchParams.get('limit'), 1000, 1, 100_000);
      sendJson(res, 200, { entries: entries.slice(-limit).map(contextItem), total: entries.length });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/context/(\\d+)$`),
    handler: async (_req, res, _url, [runId = '', id = '0'], deps) => {
      const coord = await deps.coordination();
      const entry = await coord.context.unfold(runId, Number(id));
      if (!entry.ok) return sendError(res, 404, entry.error);
      sendJson(res, 200, entry.value);
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/messages$`),
    handler: async (_req, res, _url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      const messages = (await deps.tracker.state(runId)).messages.values();
      sendJson(res, 200, { messages: [...messages].map(messageItem) });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/claims$`),
    handler: async (_req, res, _url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      sendJson(res, 200, { claims: [...(await deps.tracker.state(runId)).claims.values()].map(claimItem) });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/merges$`),
    handler: async (_req, res, _url, [runId = ''], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      sendJson(res, 200, { merges: [...(await deps.tracker.state(runId)).merges.values()].map(mergeItem) });
    },
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/metrics$`),
    handler: async (_req, res, _url, [runId = ''], deps) => {
      const run = await deps.store.runs.getRun(runId);
      if (!run) return sendError(res, 404, `no run ${runId}`);
      const v = toCompactView(await deps.tracker.state(runId), Date.now());
      sendJson(res, 200, {
        status: await runStatus(deps, run, v.status),
        wallClockMs: v.wallClockMs,
        tokens: v.tokens,
        costUsd: v.costUsd,
        modelCalls: v.modelCalls,
        toolCalls: v.toolCalls,
        events: v.events,
        agents: v.agents.length,
        counts: v.counts,
        criticalSteps: v.timeline.critical.steps,
        criticalPath: v.timeline.critical,
        verify: v.verify,
        series: v.series,
        limits: v.limits,
        limitsHit: v.limitsHit,
      });
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/runs/${SEG}/messages$`),
    handler: async (req, res, _url, [runId = ''], deps) => {
      const body = await readJsonBody(req);
      if (!body.ok) return sendError(res, 400, body.error);
      if (!(await runOr404(deps, res, runId))) return;
      const { to, channel, text } = body.value;
      const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
      if (str(text) === null) return sendError(res, 400, 'text is required');
      if ((str(to) === null) === (str(channel) === null))
        return sendError(res, 400, 'give exactly one of "to" (an agent) or "channel"');
      const coord = await deps.coordination();
      const recipient = str(to);
      const check = await checkUserMessage(
        deps.store.log,
        runId,
        recipient !== null
          ? { to: recipient }
          : {
              channel: str(channel) ?? '',
              members: (name) => coord.messages.channelMembers(runId, name),
            },
      );
      if (!check.ok) return sendError(res, check.kind === 'unknown_agent' ? 404 : 409, check.error);
      const sent = await coord.messages.send({
        runId,
        from: USER_SENDER,
        to: str(to),
        channel: str(channel),
        text: String(text),
      });
      if (!sent.ok) return sendError(res, 400, sent.error);
      sendJson(res, 200, { ok: true, message: sent.value });
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/runs/${SEG}/merges/(\\d+)/approve$`),
    handler: async (_req, res, _url, [runId = '', mr = '0'], deps) => {
      if (!(await runOr404(deps, res, runId))) return;
      const result = await approveFromOutside(deps.store.log, runId, Number(mr));
      if (!result.ok) return sendError(res, 409, result.error);
      sendJson(res, 200, { ok: true });
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/runs/${SEG}/merges/(\\d+)/reject$`),
    handler: async (req, res, _url, [runId = '', mr = '0'], deps) => {
      const body = await readJsonBody(req);
      if (!body.ok) return sendError(res, 400, body.error);
      const reason = typeof body.value.reason === 'string' ? body.value.reason.trim().slice(0, 2000) : '';
      if (reason === '') return sendError(res, 400, 'reason is required (the agent reads it)');
      if (!(await runOr404(deps, res, runId))) return;
      const result = await rejectFromOutside(deps.store.log, runId, Number(mr), reason);
      if (!result.ok) return sendError(res, 409, result.error);
      sendJson(res, 200, { ok: true });
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/runs/${SEG}/stop$`),
    handler: async (req, res, _url, [runId = ''], deps) => {
      const body = await readJsonBody(req);
      if (!body.ok) return sendError(res, 400, body.error);
      const reason = typeof body.value.reason === 'string' ? body.value.reason.slice(0, 500) : '';
      const result = await requestRunStop(deps.store, runId, USER_SENDER, reason);
      if (!result.ok) return sendError(res, 404, result.error);
      sendJson(res, 200, result);
    },
  },
  ...taskRoutes,
  ...mergeDiffRoutes,
];

export type ApiMatch = { handler: Handler; params: string[]; mutating: boolean } | { status: 404 | 405 };

export function matchApi(method: string, path: string): ApiMatch {
  let pathMatched = false;
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (route.method === method || (route.method === 'GET' && method === 'HEAD'))
      return { handler: route.handler, params: m.slice(1), mutating: route.method !== 'GET' };
  }
  return { status: pathMatched ? 405 : 404 };
}

export { createCoordination };
