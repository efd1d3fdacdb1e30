/**
 * SWE-bench-style instance files (a JSON array or JSON lines, as the datasets are exported) turned into
 * task folders: the repository as a git source at `base_commit`, `problem_statement` as the goal,
 * `test_patch` as the hidden tests (a patch applied only for grading), `patch` as reference.patch, and
 * FAIL_TO_PASS / PASS_TO_PASS (JSON-encoded string lists in the dataset) as the test lists.
 *
 * SWE-bench's own harness builds a Python environment per repository; that is not reproduced here. The
 * verify command (and any setup) is the caller's, and the test names in the lists must be names its
 * results give: pytest's node ids are matched through `--junitxml` with `-o junit_family=xunit1`
 * (docs/eval-suites.md).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { err, ok, type Result } from '../../lang/result.js';
import {
  REFERENCE_PATCH,
  type RESULT_FORMATS,
  TASK_FILE,
  TASK_FORMAT_VERSION,
  type TaskSpec,
} from './task.js';

/** The hidden tests of an imported task: the instance's test_patch. */
export const HIDDEN_PATCH = 'hidden.patch';

/** A JSON-encoded list of strings (the dataset's form) or the list itself (some exports decode it). */
const testList = z.unknown().transform((value, ctx) => {
  let decoded = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value) as unknown;
    } catch {
      // Reported below.
    }
  }
  const list = z.array(z.string()).safeParse(decoded);
  if (list.success) return list.data;
  ctx.addIssue({ code: 'custom', message: 'must be a JSON list of test names' });
  return z.NEVER;
});

export const sweBenchInstanceSchema = z.object({
  instance_id: z.string().min(1),
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, { message: 'must be owner/name' }),
  base_commit: z.string().regex(/^[0-9a-f]{40}$/, { message: 'must be a full commit id' }),
  problem_statement: z.string().min(1),
  test_patch: z.string().min(1),
  patch: z.string().min(1),
  FAIL_TO_PASS: testList,
  PASS_TO_PASS: testList,
  hints_text: z.string().optional(),
  version: z.string().optional(),
});

export type SweBenchInstance = z.infer<typeof sweBenchInstanceSchema>;

export interface SweBenchImportOptions {
  /** How the imported tasks are verified (SWE-bench's harness is Python-specific; see above). */
  verify: { command: string; results: (typeof RESULT_FORMATS)[number]; file?: string };
  setup?: string[];
  /** Default 1800 s. */
  timeoutS?: number;
  /** Where `owner/name` is fetched from (default GitHub). */
  repoUrl?: (repo: string) => string;
  /** Add the instance's hints_text to the goal. */
  withHints?: boolean;
  /** Tags added to every task (beside `swe-bench` and `repo:owner/name`). */
  tags?: string[];
  /** Replace task folders that exist (default: an existing folder is an error). */
  overwrite?: boolean;
}

/** The instances of a file's text: a JSON array or one JSON object a line. Problems name the entry. */
export function parseSweBenchInstances(
  text: string,
  file = 'instances',
): Result<SweBenchInstance[], string[]> {
  const trimmed = text.trim();
  let entries: { where: string; value: unknown }[];
  const problems: string[] = [];
  if (trimmed.startsWith('[')) {
    try {
      const array = JSON.parse(trimmed) as unknown;
      if (!Array.isArray(array)) return err([`${file}: not a JSON array`]);
      entries = array.map((value: unknown, i) => ({ where: `${file}[${i}]`, value }));
    } catch (e) {
      return err([`${file}: not valid JSON: ${(e as Error).message}`]);
    }
  } else {
    entries = [];
    trimmed.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        entries.push({ where: `${file}:${i + 1}`, value: JSON.parse(line) as unknown });
      } catch (e) {
        problems.push(`${file}:${i + 1}: not valid JSON: ${(e as Error).message}`);
      }
    });
  }
  const instances: SweBenchInstance[] = [];
  for (const { where, value } of entries) {
    const parsed = sweBenchInstanceSchema.safeParse(value);
    if (parsed.success) instances.push(parsed.data);
    else
      problems.push(
        ...parsed.error.issues.map((i) => `${where}: ${i.path.join('.') || '(entry)'}: ${i.message}`),
      );
  }
  if (problems.length === 0 && instances.length === 0) problems.push(`${file}: no instances`);
  return problems.length > 0 ? err(problems) : ok(instances);
}

/** The task folder name and id of an instance: its id with characters a folder name should not have replaced. */
export function taskIdOf(instanceId: string): string {
  const id = instanceId.replace(/[^A-Za-z0-9._-]/g, '_');
  return /^[A-Za-z0-9]/.test(id) ? id : `i${id}`;
}

export function sweBenchTaskSpec(instance: SweBenchInstance, options: SweBenchImportOptions): TaskSpec {
  const hints =
    options.withHints && instance.hints_text?.trim() ? `\n\nHints:\n${instance.hints_text.trim()}` : '';
  return {
    v: TASK_FORMAT_VERSION,
    id: taskIdOf(instance.instance_id),
    repo: {
      git: (options.repoUrl ?? ((repo) => `https://github.com/${repo}.git`))(instance.repo),
      commit: instance.base_commit,
    },
    goal: `${instance.problem_statement.trim()}${hints}`,
    setup: options.setup ?? [],
    verify: options.verify,
    hidden: { patch: HIDDEN_PATCH },
    failToPass: instance.FAIL_TO_PASS,
    // A test in both lists (seen in exported datasets) is a failToPass test.
    passToPass: instance.PASS_TO_PASS.filter((name) => !instance.FAIL_TO_PASS.includes(name)),
    timeoutS: options.timeoutS ?? 1800,
    tags: [
      'swe-bench',
      `repo:${instance.repo}`,
      ...(instance.version ? [`version:${instance.version}`] : []),
      ...(options.tags ?? []),
    ],
  };
}

/**
 * Reads an instance file and writes one task folder per instance under `outDir`. Nothing is written
 * when the file has a problem, or when a task folder exists (unless `overwrite`).
 */
export async function importSweBench(
  text: string,
  outDir: string,
  options: SweBenchImportOptions,
  file = 'instances',
): Promise<Result<{ tasks: string[] }, string[]>> {
  const parsed = parseSweBenchInstances(text, file);
  if (!parsed.ok) return parsed;
  const specs = parsed.value.map((instance) => ({ instance, spec: sweBenchTaskSpec(instance, options) }));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { spec } of specs) {
    const dir = path.join(outDir, spec.id);
    if (seen.has(spec.id)) problems.push(`${file}: ${spec.id}: two instances with this task id`);
    seen.add(spec.id);
    if (!options.overwrite && existsSync(dir)) problems.push(`${dir}: exists (overwrite to replace it)`);
  }
  if (problems.length > 0) return err(problems);
  const tasks: string[] = [];
  for (const { instance, spec } of specs) {
    const dir = path.join(outDir, spec.id);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, TASK_FILE), `${JSON.stringify(spec, null, 2)}\n`);
    await writeFile(path.join(dir, HIDDEN_PATCH), instance.test_patch);
    await writeFile(path.join(dir, REFERENCE_PATCH), instance.patch);
    tasks.push(dir);
  }
  return ok({ tasks });
}
