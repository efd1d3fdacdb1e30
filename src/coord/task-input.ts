/**
 * Validation of tasks_add input (pure): titles, scopes, dedupe keys and predecessor references,
 * checked before anything reaches the database, with messages a model can act on.
 */
import { MAX_DETAIL_CHARS, MAX_SUMMARY_CHARS } from './context.js';
import { parseScope } from './scope.js';
import type { Result } from './types.js';

export const MAX_TASKS_PER_ADD = 1000;
export const MAX_TITLE_CHARS = MAX_SUMMARY_CHARS;
export const MAX_PREDECESSORS = 100;
export const MAX_KEY_CHARS = 500;

export interface TaskInput {
  title: string;
  /** A claim scope (path or task:<id>); default `task:<id>` of the new task. */
  scope?: string;
  detail?: string;
  /** Dedupe key, unique per run; default the scope text, else the title. */
  key?: string;
  /** Predecessors: task ids, or keys/scopes of tasks added before (earlier calls or earlier items). */
  after?: readonly (number | string)[];
}

/** One task as the SQL function coord_tasks_add takes it. */
export interface TaskRow {
  key: string;
  title: string;
  detail: string | null;
  scope: string | null;
  kind: 'path' | 'task' | null;
  scopeKey: string | null;
  after: (number | string)[];
}

export function validateTasks(tasks: readonly TaskInput[]): Result<TaskRow[]> {
  if (tasks.length === 0) return { ok: false, error: 'no tasks given: pass tasks: [{title, scope?}]' };
  if (tasks.length > MAX_TASKS_PER_ADD) {
    return {
      ok: false,
      error: `${tasks.length} tasks in one call; the limit is ${MAX_TASKS_PER_ADD}. Add them in several calls.`,
    };
  }
  const rows: TaskRow[] = [];
  for (const [i, task] of tasks.entries()) {
    const row = validateTask(task);
    if (!row.ok) return { ok: false, error: `task ${i + 1}: ${row.error}` };
    rows.push(row.value);
  }
  return { ok: true, value: rows };
}

function validateTask(task: TaskInput): Result<TaskRow> {
  const title = task.title.trim();
  const chars = [...title].length;
  if (chars === 0) return { ok: false, error: 'title is empty: say what the task is' };
  if (chars > MAX_TITLE_CHARS) {
    return {
      ok: false,
      error: `title is ${chars} characters; the limit is ${MAX_TITLE_CHARS}. Shorten it and put the rest in detail.`,
    };
  }
  const detail = task.detail?.trim() || null;
  if (detail !== null && detail.length > MAX_DETAIL_CHARS) {
    return { ok: false, error: `detail is ${detail.length} characters; the limit is ${MAX_DETAIL_CHARS}` };
  }
  let scope: { text: string; kind: 'path' | 'task'; key: string } | null = null;
  if (task.scope !== undefined && task.scope.trim() !== '') {
    const parsed = parseScope(task.scope);
    if (!parsed.ok) return parsed;
    scope = parsed.value;
  }
  const key = task.key?.trim() || scope?.text || title;
  if (key.length > MAX_KEY_CHARS) {
    return { ok: false, error: `key is ${key.length} characters; the limit is ${MAX_KEY_CHARS}` };
  }
  const after = task.after ?? [];
  if (after.length > MAX_PREDECESSORS) {
    return { ok: false, error: `${after.length} predecessors; the limit is ${MAX_PREDECESSORS}` };
  }
  const refs: (number | string)[] = [];
  for (const ref of after) {
    const resolved = predecessorRef(ref);
    if (!resolved.ok) return resolved;
    refs.push(resolved.value);
  }
  return {
    ok: true,
    value: {
      key,
      title,
      detail,
      scope: scope?.text ?? null,
      kind: scope?.kind ?? null,
      scopeKey: scope?.key ?? null,
      after: refs,
    },
  };
}

/** A task id (3, "3", "#3") or a key; a key that parses as a scope is normalised like one. */
function predecessorRef(ref: number | string): Result<number | string> {
  if (typeof ref === 'number') {
    if (!Number.isSafeInteger(ref) || ref < 1)
      return { ok: false, error: `predecessor ${ref} is not a task id` };
    return { ok: true, value: ref };
  }
  const text = ref.trim();
  if (text === '') return { ok: false, error: 'a predecessor is empty: give a task id or key' };
  if (/^#?\d{1,15}$/.test(text)) return { ok: true, value: Number(text.replace('#', '')) };
  const scope = parseScope(text);
  return { ok: true, value: scope.ok ? scope.value.text : text };
}

/** A person's edit of one open task (the dashboard); at least one field. */
export interface TaskEdit {
  title?: string;
  /** Empty or null clears it. */
  detail?: string | null;
  /** Empty or null: back to `task:<id>`. */
  scope?: string | null;
  /** Place it right before / after this task on the board (one of the two). */
  before?: number;
  after?: number;
}

/** What the SQL function coord_task_edit takes (keys present only for what changes). */
export interface TaskEditRow {
  title?: string;
  detail?: string | null;
  scope?: string | null;
  kind?: 'path' | 'task' | null;
  scopeKey?: string | null;
  before?: number;
  after?: number;
}

/** Checks an edit with the rules of tasks_add (title, detail, scope), and the place it names. */
export function validateTaskEdit(edit: TaskEdit): Result<TaskEditRow> {
  const row: TaskEditRow = {};
  if (edit.title !== undefined) {
    const title = edit.title.trim();
    const chars = [...title].length;
    if (chars === 0) return { ok: false, error: 'title is empty: say what the task is' };
    if (chars > MAX_TITLE_CHARS)
      return { ok: false, error: `title is ${chars} characters; the limit is ${MAX_TITLE_CHARS}` };
    row.title = title;
  }
  if (edit.detail !== undefined) {
    const detail = edit.detail?.trim() || null;
    if (detail !== null && detail.length > MAX_DETAIL_CHARS)
      return { ok: false, error: `detail is ${detail.length} characters; the limit is ${MAX_DETAIL_CHARS}` };
    row.detail = detail;
  }
  if (edit.scope !== undefined) {
    const text = edit.scope?.trim() ?? '';
    if (text === '') Object.assign(row, { scope: null, kind: null, scopeKey: null });
    else {
      const parsed = parseScope(text);
      if (!parsed.ok) return parsed;
      Object.assign(row, { scope: parsed.value.text, kind: parsed.value.kind, scopeKey: parsed.value.key });
    }
  }
  if (edit.before !== undefined && edit.after !== undefined)
    return { ok: false, error: 'give "before" or "after", not both' };
  for (const place of ['before', 'after'] as const) {
    const id = edit[place];
    if (id === undefined) continue;
    if (!Number.isSafeInteger(id) || id < 1) return { ok: false, error: `${place}: ${id} is not a task id` };
    row[place] = id;
  }
  if (Object.keys(row).length === 0)
    return { ok: false, error: 'nothing to change: give title, detail, scope, before or after' };
  return { ok: true, value: row };
}
