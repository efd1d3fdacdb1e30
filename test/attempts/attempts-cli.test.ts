/**
 * `colony run --attempts N` end to end (built CLI, fake provider, real git and Postgres): the attempts
 * run one at a time (--attempts-concurrency 1) so the fake model can tell them apart by the order of
 * their first calls and answer each differently. The winner is the one verify passes, then the
 * judge's higher score, then the lower cost; every attempt keeps its branch colony/<run-id>, and the
 * winner's commit also gets colony/<group-id>.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

interface Answer {
  files: Record<string, string>;
  usage?: { input: number; output: number };
}

/** Attempt k (the k-th first call) writes answers[k-1]'s files, then says it is done. */
function perAttempt(answers: Answer[]): ScriptedPolicy {
  let attempts = 0;
  return (request) => {
    const done = request.messages.filter((m) => m.role === 'tool').length;
    if (done === 0) attempts++;
    const answer = answers[attempts - 1];
    if (!answer) throw new Error(`no answer for attempt ${attempts}`);
    const files = Object.entries(answer.files);
    const file = files[done];
    const usage = answer.usage ?? { input: 100, output: 10 };
    if (!file) return { text: 'Done.', usage };
    return { toolCalls: [{ name: 'write', arguments: { path: file[0], content: file[1] } }], usage };
  };
}

interface JsonAttempt {
  index: number;
  runId: string;
  status: string;
  verify: boolean | null;
  judge: { score: number | null; reason: string | null } | null;
  costUsd: number | null;
  branch: string | null;
  commit: string | null;
}
interface JsonResult {
  group: string;
  attempts: JsonAttempt[];
  winner: string | null;
  winnerBranch: { branch: string; created: boolean; error: string | null } | null;
}

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as JsonResult;
const branchTip = (repo: string, branch: string) =>
  execFileSync('git', ['rev-parse', `refs/heads/${branch}`], { cwd: repo, encoding: 'utf8' }).trim();

let store: Store;
const fakes: FakeProvider[] = [];
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
  for (const fake of fakes) await fake.close();
});

async function fake(answers: Answer[]): Promise<FakeProvider> {
  const started = await startFakeProvider({ policy: perAttempt(answers) });
  fakes.push(started);
  return started;
}

const common = (repo: string) => [
  'run',
  '--repo',
  repo,
  '--goal',
  'Write answer.txt',
  '--attempts',
  '3',
  '--attempts-concurrency',
  '1',
  '--sandbox',
  'auto',
];

describe('colony run --attempts', () => {
  it('3 attempts, only one passes verify: it wins; the table lists all three and their branches', async () => {
    const model = await fake([
      { files: { 'answer.txt': 'wrong\n' } },
      { files: { 'answer.txt': 'right\n' } },
      { files: { 'answer.txt': 'wrong again\n' } },
    ]);
    const repo = createUserRepo({ 'README.md': '# a\n' }, 'colony-attempts-').dir;
    const r = await colony(
      [...common(repo), ...fakeModelFlags(model.url), '--verify', 'grep -qx right answer.txt'],
      { env: NO_API_KEYS, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const group = /^attempts (a-[0-9a-z]+-[0-9a-f]{6}):/m.exec(r.stdout)?.[1];
    expect(group, r.stdout).toBeDefined();
    const runIds = [1, 2, 3].map(
      (k) =>
        new RegExp(`^attempt ${k}: run (r-[0-9a-z]+-[0-9a-f]{6}) started$`, 'm').exec(r.stdout)?.[1] ?? '',
    );
    expect(new Set(runIds).size).toBe(3);
    const lines = r.stdout.split('\n');
    const header = lines.findIndex((l) => /^attempt\s+run id/.test(l));
    expect(lines[header], r.stdout).toMatch(
      /^attempt\s+run id\s+status\s+verify\s+judge\s+cost\s+tokens\s+CriticalSteps\s+branch$/,
    );
    const rows = lines.slice(header + 1, header + 4);
    expect(rows[0]).toMatch(
      new RegExp(
        `^2 \\(winner\\)\\s+${runIds[1]}\\s+succeeded\\s+passed\\s+—\\s+\\S+\\s+\\d+\\s+\\d+\\s+colony/${runIds[1]}$`,
      ),
    );
    for (const k of [0, 2])
      expect(
        rows.some((row) =>
          new RegExp(`^${k + 1}\\s+${runIds[k]}\\s+failed\\s+failed\\s.*colony/${runIds[k]}$`).test(
            row ?? '',
          ),
        ),
      ).toBe(true);
    expect(r.stdout).toContain(
      `winner: attempt 2 (run ${runIds[1]}), branch colony/${runIds[1]} and colony/${group}`,
    );

    // Every attempt is an ordinary run with its own branch; the group's branch is the winner's commit.
    for (const runId of runIds) {
      const run = await store.runs.getRun(runId);
      expect(run).toBeTruthy();
      branchTip(repo, `colony/${runId}`);
    }
    expect(branchTip(repo, `colony/${group}`)).toBe(branchTip(repo, `colony/${runIds[1]}`));
    const [started] = await store.log.read(runIds[2] ?? '', { kinds: ['run.started'], limit: 1 });
    expect((started?.data.config as { attempt?: unknown } | undefined)?.attempt).toEqual({
      group,
      index: 3,
      of: 3,
    });
  }, 300_000);

  it('two pass verify: the judge breaks the tie; a judge that prints no number scores none, with the reason', async () => {
    const model = await fake([
      { files: { 'answer.txt': 'right\n', 'score.txt': '3\n' } },
      { files: { 'answer.txt': 'right\n', 'score.txt': '7.5\n' } },
      { files: { 'answer.txt': 'right\n', 'score.txt': 'excellent\n' } },
    ]);
    const repo = createUserRepo({ 'README.md': '# a\n' }, 'colony-attempts-').dir;
    const r = await colony(
      [
        ...common(repo),
        ...fakeModelFlags(model.url),
        '--verify',
        'grep -qx right answer.txt',
        '--judge',
        'cat score.txt',
        '--json',
      ],
      { env: NO_API_KEYS, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const result = lastJson(r.stdout);
    expect(result.attempts.map((a) => [a.index, a.verify, a.judge?.score])).toEqual([
      [2, true, 7.5],
      [1, true, 3],
      [3, true, null],
    ]);
    expect(result.attempts[2]?.judge?.reason).toMatch(/printed no number.*excellent/);
    expect(result.winner).toBe(result.attempts[0]?.runId);
    expect(result.winnerBranch).toEqual({ branch: `colony/${result.group}`, created: true, error: null });
    expect(branchTip(repo, `colony/${result.group}`)).toBe(result.attempts[0]?.commit);
  }, 300_000);

  it('equal verify and judge: the cheaper attempt wins', async () => {
    const big = { input: 20_000, output: 2_000 };
    const small = { input: 2_000, output: 200 };
    const model = await fake([
      { files: { 'answer.txt': 'right\n' }, usage: big },
      { files: { 'answer.txt': 'right\n' }, usage: big },
      { files: { 'answer.txt': 'right\n' }, usage: small },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'colony-attempts-config-'));
    const priced = {
      id: 'priced-fake',
      protocol: 'openai-chat',
      name: 'fake-model',
      baseUrl: model.url,
      apiKeyEnv: 'FAKE_PROVIDER_KEY',
      prices: { input: 10, cachedInput: 1, cacheWrite: 10, output: 50 },
    };
    writeFileSync(join(dir, 'team.json'), JSON.stringify({ models: [priced] }));
    const repo = createUserRepo({ 'README.md': '# a\n' }, 'colony-attempts-').dir;
    const r = await colony(
      [
        ...common(repo),
        '--model',
        'priced-fake',
        '--config',
        join(dir, 'team.json'),
        '--verify',
        'grep -qx right answer.txt',
        '--judge',
        'echo 5',
        '--json',
      ],
      { env: NO_API_KEYS, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const result = lastJson(r.stdout);
    expect(result.attempts.map((a) => a.index)).toEqual([3, 1, 2]);
    expect(result.attempts.every((a) => a.verify === true && a.judge?.score === 5)).toBe(true);
    const [cheap, ...dear] = result.attempts.map((a) => a.costUsd ?? Number.NaN);
    for (const cost of dear) expect(cheap).toBeLessThan(cost);
    expect(result.winner).toBe(result.attempts[0]?.runId);
  }, 300_000);
});

describe('colony run --attempts, concurrently', () => {
  it('starts all three at once (--attempts-concurrency 3): three ordinary runs, each with its branch', async () => {
    const model = await startFakeProvider({
      policy: (request) =>
        request.messages.some((m) => m.role === 'tool')
          ? { text: 'Done.' }
          : { toolCalls: [{ name: 'write', arguments: { path: 'answer.txt', content: 'right\n' } }] },
    });
    fakes.push(model);
    const repo = createUserRepo({ 'README.md': '# a\n' }, 'colony-attempts-').dir;
    const r = await colony(
      [
        'run',
        '--repo',
        repo,
        '--goal',
        'Write answer.txt',
        ...fakeModelFlags(model.url),
        '--attempts',
        '3',
        '--attempts-concurrency',
        '3',
        '--sandbox',
        'auto',
        '--verify',
        'grep -qx right answer.txt',
      ],
      { env: NO_API_KEYS, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const firstEnd = lines.findIndex((l) => /^attempt \d: run \S+ (succeeded|failed)/.test(l));
    const starts = lines.filter((l, i) => i < firstEnd && /^attempt \d: run \S+ started$/.test(l));
    expect(starts, r.stdout).toHaveLength(3);
    const runIds = starts.map((l) => l.split(' ')[3] ?? '');
    for (const runId of runIds) {
      expect((await store.runs.getRun(runId))?.status).toBe('succeeded');
      branchTip(repo, `colony/${runId}`);
    }
    // All equal and unpriced: the first attempt wins.
    expect(r.stdout).toContain(`winner: attempt 1 (run ${runIds[0]})`);
  }, 300_000);
});

describe('colony run --attempts --topology orchestrated', () => {
  it('2 attempts of a lead with a subagent: the one whose subagent landed the right answer wins', async () => {
    // One at a time: the lead's first call starts the next attempt; its subagent answers for it.
    let attempt = 0;
    const answers = ['wrong\n', 'right\n'];
    const model = await startFakeProvider({
      policy: (request) => {
        if (request.system.startsWith('You are the lead')) {
          if (request.messages.some((m) => m.role === 'assistant')) return { text: 'The team is done.' };
          attempt++;
          return {
            toolCalls: [
              {
                name: 'create_subagent',
                arguments: { name: 'calc', system_prompt: 'You answer.', profile: 'coder' },
              },
              { name: 'assign_task', arguments: { agent: 'calc', prompt: 'Task: write answer.txt.' } },
            ],
          };
        }
        const done = request.messages.filter((m) => m.role === 'assistant').length;
        if (done === 0)
          return {
            toolCalls: [
              { name: 'write', arguments: { path: 'answer.txt', content: answers[attempt - 1] ?? '' } },
            ],
          };
        if (done === 1) return { toolCalls: [{ name: 'merge_request', arguments: { note: 'the answer' } }] };
        return { text: 'Wrote the answer.' };
      },
    });
    fakes.push(model);
    const repo = createUserRepo({ 'README.md': '# a\n' }, 'colony-attempts-').dir;
    const r = await colony(
      [
        'run',
        '--repo',
        repo,
        '--goal',
        'Write answer.txt',
        ...fakeModelFlags(model.url),
        '--topology',
        'orchestrated',
        '--attempts',
        '2',
        '--attempts-concurrency',
        '1',
        '--sandbox',
        'auto',
        '--verify',
        'grep -qx right answer.txt',
        '--json',
      ],
      { env: NO_API_KEYS, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const result = lastJson(r.stdout);
    expect(result.attempts.map((a) => [a.index, a.verify])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(result.winner).toBe(result.attempts[0]?.runId);
    const [started] = await store.log.read(result.winner ?? '', { kinds: ['run.started'], limit: 1 });
    expect((started?.data.config as { topology?: string } | undefined)?.topology).toBe('orchestrated');
    expect(branchTip(repo, `colony/${result.group}`)).toBe(result.attempts[0]?.commit);
  }, 300_000);
});

describe('colony run --attempts usage errors', () => {
  const repo = () => createUserRepo({ 'README.md': '# a\n' }, 'colony-attempts-usage-').dir;
  const run = (extra: string[]) =>
    colony(['run', '--repo', repo(), '--goal', 'g', ...fakeModelFlags('http://127.0.0.1:9/v1'), ...extra], {
      env: NO_API_KEYS,
    });
  it.each([
    [['--attempts', '0'], /--attempts must be a whole number from 1 to 16, got "0"/],
    [['--attempts', '17'], /--attempts must be a whole number from 1 to 16, got "17"/],
    [['--attempts', 'two'], /--attempts must be a whole number from 1 to 16/],
    [
      ['--attempts', '2', '--topology', 'peers', '--agents', '2', '--verify', 'true'],
      /--attempts goes with --topology solo or orchestrated/,
    ],
    [['--attempts', '2', '--topology', 'orchestrated', '--workers'], /--attempts does not go with --workers/],
    [['--judge', 'echo 1'], /--judge need --attempts N/],
    [['--attempts', '2', '--judge', ' '], /--judge must not be empty/],
    [
      ['--attempts', '2', '--attempts-concurrency', '0'],
      /--attempts-concurrency must be a positive whole number/,
    ],
    [['--attempts', '2', '--run-id', 'r-abc-123456'], /--run-id and --attempts do not go together/],
  ])('%j is a usage error', async (extra, message) => {
    const r = await run(extra);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
