/**
 * Hub over smart HTTP benchmark: what a worker's git traffic costs through Colony's hub server
 * (workspace/hub-http/server.ts: token check, one `git http-backend` per request) on 127.0.0.1, against the
 * same operation on the hub's path (git's local transport, no HTTP). A real git client does each
 * operation `--n` times one after another: clone, ls-remote, a no-op fetch, a fetch of one new main
 * commit, a push of one commit to the agent's branch, and a refused push to main. No database.
 *
 * Usage: npm run bench -- hub-http [--n 20] [--files 500] [--file-kb 2]
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRunSecret, issueAgentToken } from '../src/auth/index.js';
import { createHub } from '../src/workspace/hub/hub.js';
import { startHubHttpServer } from '../src/workspace/hub-http/server.js';
import { parseBenchArgs } from './lib/args.js';
import { commitFixture } from './lib/fixture-repo.js';

interface Stats {
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
}

export interface HubHttpFigures {
  n: number;
  files: number;
  fileKb: number;
  /** Size of the hub's packed objects. */
  hubMB: number;
  cloneHttp: Stats;
  cloneLocal: Stats;
  lsRemoteHttp: Stats;
  fetchNoopHttp: Stats;
  fetchNoopLocal: Stats;
  fetchOneCommitHttp: Stats;
  pushOneCommitHttp: Stats;
  pushOneCommitLocal: Stats;
  refusedPushHttp: Stats;
  /** Every timed operation did what it should (refused pushes refused). */
  ok: boolean;
}

const ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_'))),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

/** Async (the server answers in this process). */
function git(cwd: string, args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd, env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ ok: !error, stdout, stderr }),
    );
  });
}

function stats(ms: number[]): Stats {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    meanMs: round(ms.reduce((a, b) => a + b, 0) / ms.length),
    p50Ms: round(at(50)),
    p95Ms: round(at(95)),
  };
}

export async function hubHttpFigures(options: {
  n: number;
  files: number;
  fileKb: number;
}): Promise<HubHttpFigures> {
  const scratch = mkdtempSync(join(tmpdir(), 'colony-bench-hub-http-'));
  let ok = true;
  const expect = (result: { ok: boolean; stderr: string }, shouldSucceed: boolean, what: string) => {
    if (result.ok !== shouldSucceed) {
      ok = false;
      process.stderr.write(`bench: ${what} ${shouldSucceed ? 'failed' : 'succeeded'}: ${result.stderr}\n`);
    }
  };
  const timed = async (what: string, args: string[], cwd: string, shouldSucceed = true) => {
    const started = performance.now();
    const result = await git(cwd, args);
    const ms = performance.now() - started;
    expect(result, shouldSucceed, what);
    return ms;
  };
  try {
    const files: Record<string, string> = {};
    for (let i = 0; i < options.files; i++)
      files[`src/dir${i % 20}/file${i}.txt`] = randomBytes(options.fileKb * 512).toString('hex');
    const user = commitFixture(join(scratch, 'user'), files, 'fixture');
    const runId = 'r-bench-000001';
    const hubPath = join(scratch, 'runs', runId, 'hub.git');
    const hub = await createHub(hubPath, user.dir, user.commit);
    if (!hub.ok) throw new Error(hub.error);
    await git(hubPath, ['repack', '-adq']);
    const sizes = await git(hubPath, ['count-objects', '-v']);
    const hubKb = Number(/size-pack: (\d+)/.exec(sizes.stdout)?.[1] ?? 0);

    const secret = createRunSecret();
    const server = await startHubHttpServer({
      runs: (id) => (id === runId ? { hubPath, secret } : undefined),
    });
    const token = issueAgentToken(secret, { runId, agent: 'bench', expiresAt: Date.now() + 3_600_000 });
    const auth = ['-c', `http.extraHeader=Authorization: Bearer ${token}`];
    const url = `${server.url}/${runId}/hub.git`;
    try {
      const clone = { http: [] as number[], local: [] as number[] };
      // One warm-up of each (page cache), then the measured ones.
      for (let i = -1; i < options.n; i++) {
        const http = await timed(
          'clone over http',
          [...auth, 'clone', '-q', url, join(scratch, `h${i}`)],
          scratch,
        );
        const local = await timed(
          'local clone',
          ['clone', '-q', '--no-local', hubPath, join(scratch, `l${i}`)],
          scratch,
        );
        if (i >= 0) {
          clone.http.push(http);
          clone.local.push(local);
        }
        rmSync(join(scratch, `h${i}`), { recursive: true, force: true });
        rmSync(join(scratch, `l${i}`), { recursive: true, force: true });
      }

      const work = join(scratch, 'work');
      expect(await git(scratch, [...auth, 'clone', '-q', url, work]), true, 'clone');
      const local = join(scratch, 'local');
      expect(await git(scratch, ['clone', '-q', '--no-local', hubPath, local]), true, 'local clone');
      // Moves hub main on by one commit outside the measured path (Colony's own side of the hub).
      const mover = join(scratch, 'mover');
      expect(await git(scratch, ['clone', '-q', hubPath, mover]), true, 'mover clone');
      const commitIn = async (dir: string, name: string) => {
        writeFileSync(join(dir, name), randomBytes(64).toString('hex'));
        await git(dir, ['add', '-A']);
        await git(dir, ['commit', '-qm', name]);
      };

      const ls: number[] = [];
      const noopHttp: number[] = [];
      const noopLocal: number[] = [];
      const fetchOne: number[] = [];
      const pushHttp: number[] = [];
      const pushLocal: number[] = [];
      const refused: number[] = [];
      for (let i = 0; i < options.n; i++) {
        ls.push(await timed('ls-remote', [...auth, 'ls-remote', url], work));
        noopHttp.push(await timed('no-op fetch', [...auth, 'fetch', '-q', 'origin'], work));
        noopLocal.push(await timed('local no-op fetch', ['fetch', '-q', 'origin'], local));
        await commitIn(mover, `main-${i}.txt`);
        expect(await git(mover, ['push', '-q', 'origin', 'HEAD:main']), true, 'moving main');
        fetchOne.push(await timed('fetch of one commit', [...auth, 'fetch', '-q', 'origin'], work));
        await git(local, ['fetch', '-q', 'origin']);
        await commitIn(work, `agent-${i}.txt`);
        pushHttp.push(
          await timed('push', [...auth, 'push', '-q', 'origin', 'HEAD:refs/heads/agent/bench'], work),
        );
        await commitIn(local, `local-${i}.txt`);
        pushLocal.push(
          await timed('local push', ['push', '-q', 'origin', 'HEAD:refs/heads/agent/local'], local),
        );
        refused.push(
          await timed('refused push', [...auth, 'push', '-q', 'origin', 'HEAD:main'], work, false),
        );
      }
      return {
        n: options.n,
        files: options.files,
        fileKb: options.fileKb,
        hubMB: Math.round((hubKb / 1024) * 100) / 100,
        cloneHttp: stats(clone.http),
        cloneLocal: stats(clone.local),
        lsRemoteHttp: stats(ls),
        fetchNoopHttp: stats(noopHttp),
        fetchNoopLocal: stats(noopLocal),
        fetchOneCommitHttp: stats(fetchOne),
        pushOneCommitHttp: stats(pushHttp),
        pushOneCommitLocal: stats(pushLocal),
        refusedPushHttp: stats(refused),
        ok,
      };
    } finally {
      await server.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseBenchArgs(process.argv.slice(2));
  const figures = await hubHttpFigures({
    n: args.number('n', 20),
    files: args.number('files', 500),
    fileKb: args.number('file-kb', 2),
  });
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
