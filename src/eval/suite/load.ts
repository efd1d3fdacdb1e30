/**
 * Reading task folders and suites from disk. Every problem is returned as data, one line each, naming
 * the file and the field (`suite/x/task.json: verify.results: …`), so a user fixing a suite by hand
 * sees all of them at once.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { err, ok, type Result } from '../../lang/result.js';
import {
  REFERENCE_PATCH,
  SUITE_FILE,
  type Suite,
  suiteSpecSchema,
  TASK_FILE,
  TASK_FORMAT_VERSION,
  type Task,
  type TaskSpec,
  taskSpecSchema,
} from './task.js';

/** One task folder: its task.json checked against the schema and against the files it names. */
export function loadTask(dir: string): Result<Task, string[]> {
  const root = path.resolve(dir);
  const file = path.join(root, TASK_FILE);
  const json = readJson(file);
  if (!json.ok) return err([json.error]);
  const parsed = parseVersioned(taskSpecSchema, json.value, file);
  if (!parsed.ok) return parsed;
  const spec = parsed.value;
  const problems = [...missingFiles(spec, root, file), ...listProblems(spec, file)];
  if (problems.length > 0) return err(problems);
  const reference = path.join(root, REFERENCE_PATCH);
  return ok({ spec, dir: root, referencePatch: existsSync(reference) ? reference : null });
}

/**
 * A suite: a folder of task folders, with an optional suite.json naming it (else the folder's name).
 * Folders whose names start with `.` or `_` are not tasks; any other folder must hold a task.json.
 */
export function loadSuite(dir: string): Result<Suite, string[]> {
  const root = path.resolve(dir);
  let entries: string[];
  try {
    entries = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !e.name.startsWith('_'))
      .map((e) => e.name)
      .sort();
  } catch (e) {
    return err([`${root}: cannot read the suite folder: ${(e as Error).message}`]);
  }
  const problems: string[] = [];
  let name = path.basename(root);
  const suiteFile = path.join(root, SUITE_FILE);
  if (existsSync(suiteFile)) {
    const json = readJson(suiteFile);
    const parsed = json.ok ? parseVersioned(suiteSpecSchema, json.value, suiteFile) : err([json.error]);
    if (parsed.ok) name = parsed.value.name;
    else problems.push(...parsed.error);
  }
  const tasks: Task[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const loaded = loadTask(path.join(root, entry));
    if (!loaded.ok) {
      problems.push(...loaded.error);
      continue;
    }
    const id = loaded.value.spec.id;
    const other = seen.get(id);
    if (other) problems.push(`${path.join(root, entry, TASK_FILE)}: id: "${id}" is also the id of ${other}`);
    seen.set(id, entry);
    tasks.push(loaded.value);
  }
  if (problems.length === 0 && tasks.length === 0) problems.push(`${root}: no task folders in the suite`);
  return problems.length > 0 ? err(problems) : ok({ name, dir: root, tasks });
}

function readJson(file: string): Result<unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return err(code === 'ENOENT' ? `${file}: missing` : `${file}: cannot read: ${(e as Error).message}`);
  }
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (e) {
    return err(`${file}: not valid JSON: ${(e as Error).message}`);
  }
}

/** The version is checked first: a newer format is named as such, not as a pile of field errors. */
function parseVersioned<S extends z.ZodType>(
  schema: S,
  json: unknown,
  file: string,
): Result<z.infer<S>, string[]> {
  const v = typeof json === 'object' && json !== null ? (json as { v?: unknown }).v : undefined;
  if (v !== undefined && v !== TASK_FORMAT_VERSION)
    return err([`${file}: v: format version ${JSON.stringify(v)}; this Colony reads ${TASK_FORMAT_VERSION}`]);
  const parsed = schema.safeParse(json);
  if (parsed.success) return ok(parsed.data);
  return err(
    parsed.error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`),
  );
}

function missingFiles(spec: TaskSpec, root: string, file: string): string[] {
  const problems: string[] = [];
  const expect = (field: string, rel: string, kind: 'folder' | 'file') => {
    const at = path.join(root, rel);
    const stat = existsSync(at) ? statSync(at) : null;
    if (!stat) problems.push(`${file}: ${field}: ${rel} does not exist`);
    else if (kind === 'folder' && !stat.isDirectory())
      problems.push(`${file}: ${field}: ${rel} is not a folder`);
    else if (kind === 'file' && !stat.isFile()) problems.push(`${file}: ${field}: ${rel} is not a file`);
  };
  if ('folder' in spec.repo) expect('repo.folder', spec.repo.folder, 'folder');
  if (typeof spec.hidden === 'string') expect('hidden', spec.hidden, 'folder');
  else expect('hidden.patch', spec.hidden.patch, 'file');
  return problems;
}

function listProblems(spec: TaskSpec, file: string): string[] {
  const problems: string[] = [];
  const both = spec.failToPass.filter((name) => spec.passToPass.includes(name));
  if (both.length > 0) problems.push(`${file}: passToPass: also in failToPass: ${both.join(', ')}`);
  for (const field of ['failToPass', 'passToPass'] as const) {
    const dupes = spec[field].filter((name, i) => spec[field].indexOf(name) !== i);
    if (dupes.length > 0) problems.push(`${file}: ${field}: listed twice: ${[...new Set(dupes)].join(', ')}`);
  }
  return problems;
}
