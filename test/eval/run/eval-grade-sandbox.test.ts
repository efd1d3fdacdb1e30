/**
 * `colony eval run` grades the agents' tree, and that tree is theirs: hostile. A scripted agent (the
 * fake provider over HTTP, a real solo run of the built CLI per trial) leaves a grade script that,
 * when the hidden tests are in place (so only while graded):
 *
 * - task `hostile-env`: dumps its environment, writes markers to /tmp and $HOME, says through its
 *   result whether it saw the eval's API key (pass when it did not);
 * - task `hostile-results`: replaces its results file with a link to a host file that says pass;
 * - task `hostile-link`: the agent made the folder the hidden tests go into a link to a host folder
 *   (the copy refused it: an infra error the agent chose; now the hidden tests replace the link).
 *
 * Evidence on the host: no marker, nothing written into the linked folder, the key in no record, no
 * note, no output and not in the environment the graded script saw (its dump, in the trial folder
 * kept by --keep), which is the sandbox's; the linked results are not read; the hidden tests went in.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval } from '../../../src/eval/run/index.js';
import { parseTrialLines } from '../../../src/eval/trial-record.js';
import type { ScriptedPolicy } from '../../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.js';
import { colony } from '../../helpers/cli.js';

const SECRET = `sk-eval-grade-${process.pid}-${Date.now().toString(36)}-KEY`;
const M = `colony-grade-attack-${process.pid}-${Date.now().toString(36)}`;
const TMP_MARKER = `/tmp/${M}-tmp`;
const HOME_MARKER = join(homedir(), `${M}-home`);
const LINKED_DIR = `/tmp/${M}-dir`;
const PASSING_TAP = `/tmp/${M}-pass.tap`;

const TAP = (status: string) => `echo 'TAP version 13'; echo '${status} 1 - adds'; echo '1..1'`;
const HOSTILE_ENV = `#!/bin/bash
if [ -f sub/hidden.txt ]; then
  env > env-dump.txt
  echo graded > ${TMP_MARKER}
  echo graded > "$HOME/${M}-home"
  env >&2
fi
if [ -n "$OPENAI_API_KEY" ]; then ${TAP('not ok')}; else ${TAP('ok')}; fi
`;
const HIDDEN_IN_PLACE = `#!/bin/bash
if [ -f sub/hidden.txt ] && [ ! -L sub ]; then ${TAP('ok')}; else ${TAP('not ok')}; fi
`;
const HOSTILE_RESULTS = `#!/bin/bash
${TAP('not ok')}
if [ -f graded.txt ]; then rm -f .colony-eval-stdout; ln -s ${PASSING_TAP} .colony-eval-stdout; fi
`;

const policy: ScriptedPolicy = (request) => {
  const goal = JSON.stringify(request.messages);
  if (request.messages.some((m) => m.role === 'tool')) return { text: 'done' };
  const write = (content: string) => ({ name: 'write', arguments: { path: 'run-tests.sh', content } });
  if (goal.includes('TASK-ENV')) return { toolCalls: [write(HOSTILE_ENV)] };
  if (goal.includes('TASK-LINK'))
    return {
      toolCalls: [
        write(HIDDEN_IN_PLACE),
        { name: 'bash', arguments: { command: `ln -s ${LINKED_DIR} sub` } },
      ],
    };
  return { toolCalls: [write(HOSTILE_RESULTS)] };
};

function writeTask(suite: string, id: string, goal: string, hidden: Record<string, string>): void {
  const dir = join(suite, id);
  mkdirSync(join(dir, 'repo'), { recursive: true });
  writeFileSync(join(dir, 'repo', 'README.md'), `# ${id}\n`);
  writeFileSync(join(dir, 'repo', 'run-tests.sh'), `#!/bin/bash\n${TAP('not ok')}\n`);
  for (const [path, text] of Object.entries(hidden)) {
    mkdirSync(join(dir, 'hidden', path, '..'), { recursive: true });
    writeFileSync(join(dir, 'hidden', path), text);
  }
  const task = {
    v: 1,
    id,
    repo: { folder: 'repo' },
    goal,
    setup: [],
    verify: { command: 'bash run-tests.sh', results: 'node-test-tap' },
    hidden: 'hidden',
    failToPass: ['adds'],
    passToPass: [],
    timeoutS: 60,
    tags: [],
  };
  writeFileSync(join(dir, 'task.json'), `${JSON.stringify(task, null, 2)}\n`);
}

/** Every file under `dir` (links not followed). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(e.parentPath, e.name);
    if (e.isDirectory()) return filesUnder(path);
    return e.isFile() ? [path] : [];
  });
}

let fake: FakeProvider;
const root = mkdtempSync(join(tmpdir(), 'colony-eval-grade-sandbox-'));
beforeAll(async () => {
  fake = await startFakeProvider({ policy });
  mkdirSync(LINKED_DIR);
  writeFileSync(PASSING_TAP, `TAP version 13\n${'ok 1 - adds'}\n1..1\n`);
});
afterAll(async () => {
  await fake.close();
  for (const p of [root, TMP_MARKER, HOME_MARKER, LINKED_DIR, PASSING_TAP])
    rmSync(p, { recursive: true, force: true });
});

describe('colony eval run grades a hostile tree in the sandbox', () => {
  it('keeps the key from the graded code, and its writes and links inside the tree', async () => {
    const suite = join(root, 'suite');
    writeTask(suite, 'hostile-env', 'TASK-ENV: make the tests pass', { 'sub/hidden.txt': 'hidden\n' });
    writeTask(suite, 'hostile-results', 'TASK-RESULTS: make the tests pass', { 'graded.txt': 'hidden\n' });
    writeTask(suite, 'hostile-link', 'TASK-LINK: make the tests pass', { 'sub/hidden.txt': 'hidden\n' });
    const arms = join(root, 'arms.json');
    writeFileSync(
      arms,
      JSON.stringify({
        v: 1,
        arms: [{ name: 'solo', topology: 'solo', size: 1, solo: true, model: 'openai-chat:fake-model' }],
      }),
    );
    const out = join(root, 'out');
    const scratch = join(root, 'tmp');
    mkdirSync(scratch);
    const args = ['eval', 'run', '--suite', suite, '--arms', arms, '--trials', '1', '--out', out];
    const r = await colony([...args, '--concurrency', '3', '--sandbox', 'on', '--keep'], {
      env: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: fake.url, ANTHROPIC_API_KEY: '', TMPDIR: scratch },
    });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(fake.stats().requests).toBeGreaterThanOrEqual(6);

    // Nothing written outside the tree: not /tmp, not $HOME, not through the agent's link.
    expect(existsSync(TMP_MARKER)).toBe(false);
    expect(existsSync(HOME_MARKER)).toBe(false);
    expect(readdirSync(LINKED_DIR)).toEqual([]);

    const { records, issues } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    expect(issues).toEqual([]);
    const outcome = (task: string) => records.find((t) => t.task === task)?.outcome;
    // The graded script saw no key (it passes only then), in the sandbox's environment.
    expect(outcome('hostile-env')).toBe('pass');
    const dumps = filesUnder(join(scratch, 'colony-eval')).filter((f) => f.endsWith('env-dump.txt'));
    expect(dumps.length).toBeGreaterThan(0);
    for (const dump of dumps) {
      const env = readFileSync(dump, 'utf8');
      expect(env).toContain('HOME=/tmp/home');
      expect(env).not.toContain(SECRET);
      expect(env).not.toMatch(/COLONY_|OPENAI_/);
    }
    // The results behind the agent's link (a host file saying pass) were not read.
    expect(outcome('hostile-results')).toBe('infra_error');
    const notes = readFileSync(join(out, 'notes.jsonl'), 'utf8');
    expect(notes).toMatch(/\.colony-eval-stdout not read: a symbolic link is in the way/);
    // The hidden tests replaced the agent's link, and went in the tree, not into the host folder.
    expect(outcome('hostile-link')).toBe('pass');

    for (const file of filesUnder(out)) expect(readFileSync(file, 'utf8'), file).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  }, 120_000);

  it('refuses to start without a sandbox, unless grading is turned off by name', async () => {
    const suite = join(root, 'suite-2');
    writeTask(suite, 'plain', 'make the tests pass', { 'graded.txt': 'hidden\n' });
    const arms = join(root, 'arms-2.json');
    writeFileSync(
      arms,
      JSON.stringify({ v: 1, arms: [{ name: 'solo', topology: 'solo', size: 1, model: 'sim:p=1' }] }),
    );
    const out = join(root, 'out-2');
    // No bwrap on this PATH: the sandbox cannot be had.
    const env = { ...process.env, PATH: join(root, 'no-bin') };
    const refused = await runEval({ suite, arms, trials: 1, out, sandbox: 'off', env });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error).toMatch(/grading runs the agents' code in a bubblewrap sandbox/);
      expect(refused.error).toMatch(/--grade-sandbox off/);
    }
    expect(existsSync(join(out, 'trials.jsonl'))).toBe(false);
  });
});
