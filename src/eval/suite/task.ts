/**
 * The task format of `colony eval` (docs/eval-suites.md): a folder holding `task.json`, the repository
 * the agents start from (or where to fetch it), the hidden tests that are added only for grading, and
 * `reference.patch`, a fix that must pass. A versioned zod schema, so a task written for another
 * version of Colony (or edited by hand) is refused with the file and field named.
 */
import path from 'node:path';
import { z } from 'zod';

/** Raise when the meaning of a task.json changes; loaders refuse versions they do not know. */
export const TASK_FORMAT_VERSION = 1;

/** How the verify command reports its per-test results (src/eval/suite/results/). */
export const RESULT_FORMATS = ['node-test-tap', 'junit-xml', 'jest-json'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

export const TASK_FILE = 'task.json';
export const SUITE_FILE = 'suite.json';
/** The reference fix, a `git apply` patch against the start state, beside task.json. */
export const REFERENCE_PATCH = 'reference.patch';

// A task folder is self-contained and may be copied anywhere: its paths stay inside it.
const innerPath = z
  .string()
  .min(1)
  .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), {
    message: 'must be a relative path inside the task folder',
  });

const testNames = z.array(z.string().min(1));

export const taskSpecSchema = z.strictObject({
  v: z.literal(TASK_FORMAT_VERSION),
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
    message: 'must be letters, digits, dots, dashes or underscores (it names folders)',
  }),
  repo: z.union(
    [
      z.strictObject({ folder: innerPath }),
      z.strictObject({
        git: z.string().min(1),
        commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, { message: 'must be a full commit id' }),
      }),
    ],
    { error: 'must be { "folder": PATH } or { "git": URL_OR_PATH, "commit": SHA }' },
  ),
  goal: z.string().min(1),
  setup: z.array(z.string().min(1)),
  verify: z.strictObject({
    command: z.string().min(1),
    results: z.enum(RESULT_FORMATS),
    /** Where the command writes its results, inside the checkout; without it, its stdout is read. */
    file: innerPath.optional(),
  }),
  /** A folder whose files are copied over the checkout, or a patch applied to it, for grading only. */
  hidden: z.union([innerPath, z.strictObject({ patch: innerPath })], {
    error: 'must be a folder path or { "patch": PATH }',
  }),
  failToPass: testNames.min(1),
  passToPass: testNames,
  timeoutS: z.number().int().positive(),
  tags: z.array(z.string().min(1)),
});

export type TaskSpec = z.infer<typeof taskSpecSchema>;

/** A task as loaded: its spec, its folder (absolute) and its reference fix when it has one. */
export interface Task {
  spec: TaskSpec;
  dir: string;
  /** Absolute path of reference.patch; null when the task has none (it can be graded, not validated). */
  referencePatch: string | null;
}

export const suiteSpecSchema = z.strictObject({
  v: z.literal(TASK_FORMAT_VERSION),
  name: z.string().min(1),
  description: z.string().optional(),
});

export type SuiteSpec = z.infer<typeof suiteSpecSchema>;

export interface Suite {
  name: string;
  dir: string;
  tasks: Task[];
}

/**
 * The repository a task's results cluster by (the report's clustered intervals): its `repo:NAME` tag,
 * else its git source, else the task itself.
 */
export function repoKeyOf(spec: TaskSpec): string {
  const tag = spec.tags.find((t) => t.startsWith('repo:'));
  if (tag) return tag.slice('repo:'.length);
  return 'git' in spec.repo ? spec.repo.git : spec.id;
}
