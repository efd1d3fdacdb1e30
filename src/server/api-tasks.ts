/**
 * The task board of a run on the API: read it, and as a person (token) add tasks and edit or move
 * open ones. Writes go through the coordination services agents use (`TaskService.add` / `edit`, the
 * checks of src/coord/task-input.ts), are logged (task.added / task.edited with `by: 'user'`, no
 * agent) and wake the run's `claim_next {wait}` callers, in whichever process they run.
 */
import { USER_SENDER } from '../coord/index.js';
import type { TaskInput } from '../coord/task-input.js';
import type { TaskEditOutcome } from '../coord/tasks.js';
import type { Route } from './api.js';
import { intParam, readJsonBody, sendError, sendJson } from './http-util.js';

const SEG = '([^/]+)';

/** HTTP status of a refused edit. */
const EDIT_STATUS: Record<Exclude<TaskEditOutcome['outcome'], 'ok' | 'unchanged'>, number> = {
  not_found: 404,
  closed: 409,
  held: 409,
  bad: 400,
};

/** A task from a JSON body, or why not (typed fields only; the rules are task-input.ts's). */
function taskInput(value: unknown, i: number): { ok: true; value: TaskInput } | { ok: false; error: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, error: `task ${i + 1}: not an object` };
  const t = value as Record<string, unknown>;
  if (typeof t.title !== 'string') return { ok: false, error: `task ${i + 1}: title (a string) is required` };
  for (const field of ['scope', 'detail', 'key'] as const)
    if (t[field] !== undefined && t[field] !== null && typeof t[field] !== 'string')
      return { ok: false, error: `task ${i + 1}: ${field} must be a string` };
  const after = t.after ?? [];
  if (!Array.isArray(after) || !after.every((a) => typeof a === 'number' || typeof a === 'string'))
    return { ok: false, error: `task ${i + 1}: after must be a list of task ids or keys` };
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  return {
    ok: true,
    value: {
      title: t.title,
      scope: str(t.scope),
      detail: str(t.detail),
      key: str(t.key),
      after: after as (number | string)[],
    },
  };
}

export const taskRoutes: Route[] = [
  {
    method: 'GET',
    pattern: new RegExp(`^/api/runs/${SEG}/tasks$`),
    handler: async (_req, res, url, [runId = ''], deps) => {
      if (!(await deps.store.runs.getRun(runId))) return sendError(res, 404, `no run ${runId}`);
      const coord = await deps.coordination();
      const board = await coord.tasks.board(runId, intParam(url.searchParams.get('limit'), 1000, 1, 5000));
      if (!board.ok) return sendError(res, 500, board.error);
      sendJson(res, 200, board.value);
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/runs/${SEG}/tasks$`),
    handler: async (req, res, _url, [runId = ''], deps) => {
      const body = await readJsonBody(req);
      if (!body.ok) return sendError(res, 400, body.error);
      // One task ({title, …}) or several ({tasks: [...]}).
      const raw = Array.isArray(body.value.tasks) ? body.value.tasks : [body.value];
      const tasks: TaskInput[] = [];
      for (const [i, item] of raw.entries()) {
        const task = taskInput(item, i);
        if (!task.ok) return sendError(res, 400, task.error);
        tasks.push(task.value);
      }
      const run = await deps.store.runs.getRun(runId);
      if (!run) return sendError(res, 404, `no run ${runId}`);
      if (run.status !== 'running')
        return sendError(res, 409, `run ${runId} is ${run.status}: no agent would take a task`);
      const coord = await deps.coordination();
      const added = await coord.tasks.add(runId, { person: USER_SENDER }, tasks);
      if (!added.ok) return sendError(res, 400, added.error);
      await coord.boardChanged(runId);
      sendJson(res, 200, { ok: true, tasks: added.value });
    },
  },
  {
    method: 'PATCH',
    pattern: new RegExp(`^/api/runs/${SEG}/tasks/(\\d+)$`),
    handler: async (req, res, _url, [runId = '', id = '0'], deps) => {
      const body = await readJsonBody(req);
      if (!body.ok) return sendError(res, 400, body.error);
      const { title, detail, scope, before, after } = body.value;
      const optional = (v: unknown, type: 'string' | 'number', nullable: boolean) =>
        v === undefined || typeof v === type || (nullable && v === null);
      if (
        !optional(title, 'string', false) ||
        !optional(detail, 'string', true) ||
        !optional(scope, 'string', true) ||
        !optional(before, 'number', false) ||
        !optional(after, 'number', false)
      )
        return sendError(
          res,
          400,
          'fields: title (string), detail and scope (string or null), before or after (a task id)',
        );
      const run = await deps.store.runs.getRun(runId);
      if (!run) return sendError(res, 404, `no run ${runId}`);
      if (run.status !== 'running') return sendError(res, 409, `run ${runId} is ${run.status}`);
      const coord = await deps.coordination();
      const edited = await coord.tasks.edit(runId, Number(id), USER_SENDER, {
        ...(title !== undefined ? { title: title as string } : {}),
        ...(detail !== undefined ? { detail: detail as string | null } : {}),
        ...(scope !== undefined ? { scope: scope as string | null } : {}),
        ...(before !== undefined ? { before: before as number } : {}),
        ...(after !== undefined ? { after: after as number } : {}),
      });
      if (!edited.ok) return sendError(res, 400, edited.error);
      const { outcome, message } = edited.value;
      if (outcome !== 'ok' && outcome !== 'unchanged') return sendError(res, EDIT_STATUS[outcome], message);
      if (outcome === 'ok') await coord.boardChanged(runId);
      sendJson(res, 200, { ok: true, outcome, message });
    },
  },
];
