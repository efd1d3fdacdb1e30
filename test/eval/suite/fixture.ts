/** Small task folders for the suite tests, written to a temp folder. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadTask } from '../../../src/eval/suite/load.js';
import type { Task, TaskSpec } from '../../../src/eval/suite/task.js';

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

/** A one-module repository: `add` subtracts (the planted bug), `double` works. */
export const MINI_REPO: Record<string, string> = {
  'package.json': '{ "type": "module" }\n',
  'src/math.js': 'export const add = (a, b) => a - b;\nexport const double = (a) => a * 2;\n',
  'test/visible.test.js':
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { double } from '../src/math.js';\ntest('double doubles', () => assert.equal(double(2), 4));\n",
};

export const MINI_HIDDEN: Record<string, string> = {
  'test/grading/add.test.js':
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../../src/math.js';\ntest('add adds', () => assert.equal(add(2, 3), 5));\ntest('add with zero', () => assert.equal(add(4, 0), 4));\n",
};

export const MINI_FIX = `diff --git a/src/math.js b/src/math.js
--- a/src/math.js
+++ b/src/math.js
@@ -1,2 +1,2 @@
-export const add = (a, b) => a - b;
+export const add = (a, b) => a + b;
 export const double = (a) => a * 2;
`;

export function miniSpec(overrides: Partial<TaskSpec> = {}): TaskSpec {
  return {
    v: 1,
    id: 'mini',
    repo: { folder: 'repo' },
    goal: 'add subtracts; make it add.',
    setup: [],
    verify: { command: 'node --test --test-reporter=tap', results: 'node-test-tap' },
    hidden: 'hidden',
    failToPass: ['add adds'],
    passToPass: ['double doubles', 'add with zero'],
    timeoutS: 60,
    tags: ['repo:mini'],
    ...overrides,
  };
}

export interface MiniOptions {
  spec?: Partial<TaskSpec>;
  /** The task.json as written, when it must be something the schema refuses. */
  rawSpec?: unknown;
  repo?: Record<string, string>;
  hidden?: Record<string, string>;
  /** Extra files of the task folder. */
  extra?: Record<string, string>;
  /** reference.patch's text; null for none (default: the fix of `add`). */
  reference?: string | null;
}

/** Writes a task folder under `root` (default: a new temp folder) and returns its path. */
export function writeMiniTask(
  options: MiniOptions = {},
  root = mkdtempSync(path.join(tmpdir(), 'colony-task-')),
): string {
  writeFiles(path.join(root, 'repo'), options.repo ?? MINI_REPO);
  writeFiles(path.join(root, 'hidden'), options.hidden ?? MINI_HIDDEN);
  writeFiles(root, options.extra ?? {});
  const reference = options.reference === undefined ? MINI_FIX : options.reference;
  if (reference !== null) writeFileSync(path.join(root, 'reference.patch'), reference);
  writeFileSync(
    path.join(root, 'task.json'),
    JSON.stringify(options.rawSpec ?? miniSpec(options.spec), null, 2),
  );
  return root;
}

export function loadOrThrow(dir: string): Task {
  const loaded = loadTask(dir);
  if (!loaded.ok) throw new Error(loaded.error.join('\n'));
  return loaded.value;
}

/** A git checkout of `files` (the "agents' working tree"). */
export function gitCheckout(
  files: Record<string, string>,
  dir = mkdtempSync(path.join(tmpdir(), 'colony-tree-')),
): string {
  writeFiles(dir, files);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'start');
  return dir;
}
