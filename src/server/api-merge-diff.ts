/**
 * `GET /api/runs/ID/merges/MR/diff`: a merge request's change as Colony computes it in the run's hub
 * (src/workspace/integration/mr-diff.ts: hardened git, no diff drivers or textconv, capped), with its
 * verify result. A read like the others; the page renders it as text only.
 */
import { mergeRequestDiff } from '../workspace/integration/index.js';
import type { Route } from './api.js';
import { sendError, sendJson } from './http-util.js';

export const mergeDiffRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/api\/runs\/([^/]+)\/merges\/(\d+)\/diff$/,
    handler: async (_req, res, _url, [runId = '', mr = '0'], deps) => {
      if (!(await deps.store.runs.getRun(runId))) return sendError(res, 404, `no run ${runId}`);
      const diff = await mergeRequestDiff(deps.store.log, runId, Number(mr));
      if (!diff.ok) return sendError(res, diff.status, diff.error);
      sendJson(res, 200, diff.value);
    },
  },
];
