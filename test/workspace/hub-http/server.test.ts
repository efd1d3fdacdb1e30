/**
 * The hub over smart HTTP with a real git client against a real server on 127.0.0.1: what an agent
 * token lets a client see and move, and that everything else leaves the hub as it was.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTokenScope, createRunSecret, issueAgentToken } from '../../../src/auth/index.js';
import { createHub } from '../../../src/workspace/hub/hub.js';
import { type HubHttpServer, startHubHttpServer } from '../../../src/workspace/hub-http/server.js';
import { makeUserRepo, sh, tempDir, write } from '../helpers.js';

const RUN = 'r-test-000001';
const OTHER_RUN = 'r-test-000002';
const HOUR = 3_600_000;

interface Git {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test's git client: no user config, no prompts, async so the in-process server can answer. */
function git(cwd: string, ...args: string[]): Promise<Git> {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_'))),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Agent',
    GIT_AUTHOR_EMAIL: 'agent@example.com',
    GIT_COMMITTER_NAME: 'Agent',
    GIT_COMMITTER_EMAIL: 'agent@example.com',
  };
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

const bearer = (token: string) => ['-c', `http.extraHeader=Authorization: Bearer ${token}`];

describe('hub over smart HTTP', () => {
  let tmp: ReturnType<typeof tempDir>;
  let hub: string;
  let otherHub: string;
  const secret = createRunSecret();
  const otherSecret = createRunSecret();
  let server: HubHttpServer;
  const serverLog: string[] = [];
  let url: string;
  let commitB: string;
  const tokenA = () => issueAgentToken(secret, { runId: RUN, agent: 'a', expiresAt: Date.now() + HOUR });
  const tokenB = () => issueAgentToken(secret, { runId: RUN, agent: 'b', expiresAt: Date.now() + HOUR });

  /** Every ref of the hub and what it points at. */
  const hubRefs = () => sh(hub, 'for-each-ref', '--format=%(refname) %(objectname)');

  beforeAll(async () => {
    tmp = tempDir('colony-hub-http-');
    const user = path.join(tmp.dir, 'user');
    mkdirSync(user);
    const { second } = makeUserRepo(user);
    sh(user, 'tag', 'v1', second);
    hub = path.join(tmp.dir, 'runs', RUN, 'hub.git');
    const created = await createHub(hub, user, second);
    expect(created.ok).toBe(true);
    otherHub = path.join(tmp.dir, 'runs', OTHER_RUN, 'hub.git');
    expect((await createHub(otherHub, user, second)).ok).toBe(true);

    // Agent b has a branch and a work-in-progress ref with a commit nobody else has.
    const work = path.join(tmp.dir, 'b-work');
    sh(tmp.dir, 'clone', '--quiet', hub, work);
    write(work, 'b.txt', 'b was here\n');
    sh(work, 'add', '-A');
    sh(work, 'commit', '--quiet', '-m', 'b private');
    commitB = sh(work, 'rev-parse', 'HEAD');
    sh(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/b', 'HEAD:refs/colony/wip/b');
    sh(hub, 'update-ref', 'refs/heads/agent/a', second);

    server = await startHubHttpServer({
      runs: (runId) =>
        runId === RUN
          ? { hubPath: hub, secret }
          : runId === OTHER_RUN
            ? { hubPath: otherHub, secret: otherSecret }
            : undefined,
      basePath: '/git',
      refLockDeadMs: 1_500,
      log: (line) => serverLog.push(line),
    });
    url = `${server.url}/${RUN}/hub.git`;
  });

  afterAll(async () => {
    await server?.close();
    tmp?.cleanup();
  });

  async function cloneAs(token: string, name: string): Promise<string> {
    const dir = path.join(tmp.dir, `${name}-${randomBytes(3).toString('hex')}`);
    const result = await git(tmp.dir, ...bearer(token), 'clone', '--quiet', url, dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return dir;
  }

  async function commitIn(dir: string, file: string): Promise<string> {
    write(dir, file, `${randomBytes(8).toString('hex')}\n`);
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '--quiet', '-m', `add ${file}`);
    return (await git(dir, 'rev-parse', 'HEAD')).stdout.trim();
  }

  it('clones with a bearer token: main checked out, only main and its own refs advertised', async () => {
    const dir = await cloneAs(tokenA(), 'clone');
    expect((await git(dir, 'rev-parse', 'HEAD')).stdout.trim()).toBe(sh(hub, 'rev-parse', 'refs/heads/main'));
    const remote = await git(dir, ...bearer(tokenA()), 'ls-remote', 'origin');
    const refs = remote.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[1]);
    expect(refs).toEqual(['HEAD', 'refs/heads/agent/a', 'refs/heads/main']);
  });

  it('clones with the token as the basic-auth password in the URL', async () => {
    const dir = path.join(tmp.dir, 'basic');
    const withPassword = url.replace('http://', `http://agent:${tokenA()}@`);
    const result = await git(tmp.dir, 'clone', '--quiet', withPassword, dir);
    expect(result.code, result.stderr).toBe(0);
    expect((await git(dir, 'rev-parse', 'HEAD')).stdout.trim()).toBe(sh(hub, 'rev-parse', 'refs/heads/main'));
  });

  it("fetches main and its own branch, not another agent's branch, wip ref or commit", async () => {
    const dir = await cloneAs(tokenA(), 'fetch');
    const own = await git(
      dir,
      ...bearer(tokenA()),
      'fetch',
      'origin',
      'refs/heads/agent/a:refs/remotes/origin/mine',
    );
    expect(own.code, own.stderr).toBe(0);
    for (const ref of ['refs/heads/agent/b', 'refs/colony/wip/b', 'refs/tags/v1']) {
      const other = await git(dir, ...bearer(tokenA()), 'fetch', 'origin', ref);
      expect(other.code, ref).not.toBe(0);
      expect(other.stderr).toMatch(/couldn't find remote ref/);
    }
    // Not by object id either: the server only sends what a visible ref reaches.
    const byId = await git(dir, ...bearer(tokenA()), 'fetch', 'origin', commitB);
    expect(byId.code).not.toBe(0);
    expect((await git(dir, 'cat-file', '-e', commitB)).code).not.toBe(0);
    // b itself sees its refs.
    const asB = await git(dir, ...bearer(tokenB()), 'fetch', 'origin', 'refs/colony/wip/b');
    expect(asB.code, asB.stderr).toBe(0);
    expect((await git(dir, 'cat-file', '-e', commitB)).code).toBe(0);
  });

  it('pushes to its own branch and wip ref: the commit lands in the hub, the reflog names the agent', async () => {
    const dir = await cloneAs(tokenA(), 'push');
    const commit = await commitIn(dir, 'a.txt');
    const push = await git(
      dir,
      ...bearer(tokenA()),
      'push',
      'origin',
      'HEAD:refs/heads/agent/a',
      'HEAD:refs/colony/wip/a',
    );
    expect(push.code, push.stderr).toBe(0);
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/a')).toBe(commit);
    expect(sh(hub, 'rev-parse', 'refs/colony/wip/a')).toBe(commit);
    expect(sh(hub, 'reflog', 'show', '--format=%gn', '-1', 'refs/heads/agent/a')).toBe('a');
    // A forced update of its own branch is allowed (agents rebase); the reflog keeps the old one.
    await git(dir, 'reset', '--quiet', '--hard', 'HEAD~1');
    const replaced = await commitIn(dir, 'a2.txt');
    const force = await git(dir, ...bearer(tokenA()), 'push', '--force', 'origin', 'HEAD:refs/heads/agent/a');
    expect(force.code, force.stderr).toBe(0);
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/a')).toBe(replaced);
  });

  it("removes a dead lock on the pushed ref (a killed owner's orphaned push), and waits out a live one", async () => {
    const lock = path.join(hub, 'refs/heads/agent/a.lock');
    const dir = await cloneAs(tokenA(), 'dead-lock');
    // A lock left a minute ago: with it in place, plain git refuses the update.
    writeFileSync(lock, `${'0'.repeat(40)}\n`);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, minuteAgo, minuteAgo);
    expect((await git(hub, 'update-ref', 'refs/heads/agent/a', 'refs/heads/main')).code).not.toBe(0);
    const first = await commitIn(dir, 'after-dead-lock.txt');
    const push = await git(dir, ...bearer(tokenA()), 'push', '--force', 'origin', 'HEAD:refs/heads/agent/a');
    expect(push.code, push.stderr).toBe(0);
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/a')).toBe(first);
    expect(existsSync(lock)).toBe(false);
    expect(serverLog.some((l) => l.includes('removed a dead lock on refs/heads/agent/a'))).toBe(true);

    // A fresh lock whose holder finishes 300 ms later: the push waits for it, nothing is removed.
    serverLog.length = 0;
    writeFileSync(lock, `${'0'.repeat(40)}\n`);
    setTimeout(() => rmSync(lock, { force: true }), 300);
    const second = await commitIn(dir, 'after-live-lock.txt');
    const waited = await git(dir, ...bearer(tokenA()), 'push', 'origin', 'HEAD:refs/heads/agent/a');
    expect(waited.code, waited.stderr).toBe(0);
    expect(sh(hub, 'rev-parse', 'refs/heads/agent/a')).toBe(second);
    expect(serverLog.filter((l) => l.includes('dead lock'))).toEqual([]);
  });

  it('refuses pushes to main, to another agent, tags, deletes and mixed pushes; the hub stays as it was', async () => {
    const dir = await cloneAs(tokenA(), 'refused');
    const commit = await commitIn(dir, 'evil.txt');
    await git(dir, 'tag', 'v2');
    const before = hubRefs();
    // Each push, and the ref as git names it in its report.
    const attempts: Array<[string[], string]> = [
      [['HEAD:refs/heads/main'], 'HEAD -> main'],
      [['HEAD:main'], 'HEAD -> main'],
      [['HEAD:refs/heads/agent/b'], 'HEAD -> agent/b'],
      [['HEAD:refs/colony/wip/b'], 'HEAD -> refs/colony/wip/b'],
      [['HEAD:refs/heads/agent/a/sub'], 'HEAD -> agent/a/sub'],
      [['v2'], 'v2 -> v2'],
      [['HEAD:refs/heads/agent/a', 'HEAD:refs/heads/main'], 'HEAD -> main'],
      [['--delete', 'refs/heads/agent/b'], 'agent/b'],
      [['--delete', 'refs/heads/agent/a'], 'agent/a'],
    ];
    for (const [args, shown] of attempts) {
      const push = await git(dir, ...bearer(tokenA()), 'push', 'origin', ...args);
      expect(push.code, args.join(' ')).not.toBe(0);
      expect(push.stderr, args.join(' ')).toContain(`! [remote rejected] ${shown} (`);
      expect(push.stderr).toMatch(/remote: colony: (agent a may push only|deleting refs)/);
      expect(hubRefs(), args.join(' ')).toBe(before);
    }
    // The refused pack was never handed to git: its commit is not in the hub.
    expect((await git(hub, 'cat-file', '-e', commit)).code).not.toBe(0);
    // Agent b's token cannot push to a's branch either.
    const asB = await git(dir, ...bearer(tokenB()), 'push', 'origin', 'HEAD:refs/heads/agent/a');
    expect(asB.stderr).toContain('agent b may push only');
    expect(hubRefs()).toBe(before);
  });

  it('answers 401 with a challenge to a missing, bad, expired, other-run or git-less token; nothing changes', async () => {
    const dir = await cloneAs(tokenA(), 'denied');
    await commitIn(dir, 'denied.txt');
    const before = hubRefs();
    const expired = issueAgentToken(secret, { runId: RUN, agent: 'a', expiresAt: Date.now() - 1 });
    const otherRun = issueAgentToken(otherSecret, {
      runId: OTHER_RUN,
      agent: 'a',
      expiresAt: Date.now() + HOUR,
    });
    const otherRunSameSecret = issueAgentToken(secret, {
      runId: OTHER_RUN,
      agent: 'a',
      expiresAt: Date.now() + HOUR,
    });
    const mcpOnly = issueAgentToken(secret, {
      runId: RUN,
      agent: 'a',
      expiresAt: Date.now() + HOUR,
      scopes: ['mcp'] as AgentTokenScope[],
    });
    const tampered = `${tokenA().slice(0, -3)}AAA`;
    const cases: Array<[string, string[], RegExp]> = [
      ['no token', [], /needs an agent token/],
      ['garbage', bearer('hunter2'), /not a Colony agent token/],
      ['tampered', bearer(tampered), /not issued for this run|not a Colony/],
      ['expired', bearer(expired), /expired/],
      ['other run', bearer(otherRun), /not issued for this run/],
      ['other run, same secret', bearer(otherRunSameSecret), /another run/],
      ['no git scope', bearer(mcpOnly), /does not allow git/],
    ];
    for (const [name, auth, reason] of cases) {
      const response = await fetch(`${url}/info/refs?service=git-upload-pack`, {
        headers:
          auth.length > 0
            ? { authorization: (auth[1] ?? '').replace('http.extraHeader=Authorization: ', '') }
            : {},
      });
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toMatch(/Basic realm="colony hub"/);
      expect(await response.text(), name).toMatch(reason);
      const fetchResult = await git(dir, ...auth, 'fetch', 'origin');
      expect(fetchResult.code, name).not.toBe(0);
      const push = await git(dir, ...auth, 'push', 'origin', 'HEAD:refs/heads/agent/a');
      expect(push.code, name).not.toBe(0);
      expect(push.stderr, name).toMatch(/Authentication failed|could not read Username|401/);
      expect(hubRefs(), name).toBe(before);
    }
    // The other run's token works on the other run's hub.
    const ok = await fetch(`${server.url}/${OTHER_RUN}/hub.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Bearer ${otherRun}` },
    });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    // An unknown run answers like a bad token.
    const unknown = await fetch(`${server.url}/r-nope/hub.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Bearer ${tokenA()}` },
    });
    expect(unknown.status).toBe(401);
    await unknown.text();
  });

  it('serves only the smart protocol: dumb-HTTP files, other paths and methods are refused', async () => {
    const auth = { authorization: `Bearer ${tokenA()}` };
    for (const p of [
      '/HEAD',
      '/objects/info/packs',
      '/info/refs',
      '/info/refs?service=git-upload-archive',
      '/config',
    ]) {
      const response = await fetch(`${url}${p}`, { headers: auth });
      expect(response.status, p).toBe(404);
      await response.text();
    }
    const post = await fetch(`${url}/info/refs?service=git-upload-pack`, { method: 'POST', headers: auth });
    expect(post.status).toBe(405);
    await post.text();
    const outside = await fetch(
      `${server.url.replace('/git', '')}/${RUN}/hub.git/info/refs?service=git-upload-pack`,
      {
        headers: auth,
      },
    );
    expect(outside.status).toBe(404);
    await outside.text();
  });

  it('decodes a gzip-compressed fetch request', async () => {
    const main = sh(hub, 'rev-parse', 'refs/heads/main');
    const request = Buffer.from(`0032want ${main}\n00000009done\n`);
    const response = await fetch(`${url}/git-upload-pack`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokenA()}`,
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body: gzipSync(request),
    });
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.subarray(0, 8).toString()).toBe('0008NAK\n');
    expect(body.includes(Buffer.from('PACK'))).toBe(true);
  });

  it('refuses with 403 a refused push whose client asked for no report', async () => {
    const main = sh(hub, 'rev-parse', 'refs/heads/main');
    const line = `${main} ${'1'.repeat(40)} refs/heads/main\n`;
    const pkt = `${(line.length + 4).toString(16).padStart(4, '0')}${line}0000`;
    const response = await fetch(`${url}/git-receive-pack`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokenA()}`,
        'content-type': 'application/x-git-receive-pack-request',
      },
      body: pkt,
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(
      /agent a may push only refs\/heads\/agent\/a and refs\/colony\/wip\/a/,
    );
    expect(sh(hub, 'rev-parse', 'refs/heads/main')).toBe(main);
  });

  it('survives a client that goes away in the middle of a push; the hub is unchanged', async () => {
    const before = hubRefs();
    const main = sh(hub, 'rev-parse', 'refs/heads/main');
    const line = `${'0'.repeat(40)} ${main} refs/heads/agent/a\0report-status side-band-64k\n`;
    const target = new URL(`${url}/git-receive-pack`);
    await new Promise<void>((resolve) => {
      const req = request(target, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokenA()}`,
          'content-type': 'application/x-git-receive-pack-request',
          'transfer-encoding': 'chunked',
        },
      });
      req.on('error', () => resolve());
      req.write(`${(line.length + 4).toString(16).padStart(4, '0')}${line}0000PACK\0\0\0\x02`);
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    const after = await fetch(`${url}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Bearer ${tokenA()}` },
    });
    expect(after.status).toBe(200);
    await after.arrayBuffer();
    expect(hubRefs()).toBe(before);
  });

  it('answers garbage in a push with 400', async () => {
    const response = await fetch(`${url}/git-receive-pack`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokenA()}`,
        'content-type': 'application/x-git-receive-pack-request',
      },
      body: 'zzzz not pkt lines',
    });
    expect(response.status).toBe(400);
    await response.text();
  });
});

describe('hub over smart HTTP: body limit', () => {
  let tmp: ReturnType<typeof tempDir>;
  let hub: string;
  let server: HubHttpServer;
  const secret = createRunSecret();
  const token = () => issueAgentToken(secret, { runId: RUN, agent: 'a', expiresAt: Date.now() + HOUR });

  beforeAll(async () => {
    tmp = tempDir('colony-hub-http-limit-');
    const user = path.join(tmp.dir, 'user');
    mkdirSync(user);
    const { second } = makeUserRepo(user);
    hub = path.join(tmp.dir, 'runs', RUN, 'hub.git');
    expect((await createHub(hub, user, second)).ok).toBe(true);
    server = await startHubHttpServer({ runs: () => ({ hubPath: hub, secret }), maxBodyBytes: 256 * 1024 });
  });

  afterAll(async () => {
    await server?.close();
    tmp?.cleanup();
  });

  it('refuses a push larger than the limit; the hub is unchanged', async () => {
    const dir = path.join(tmp.dir, 'big');
    const clone = await git(
      tmp.dir,
      ...bearer(token()),
      'clone',
      '--quiet',
      `${server.url}/${RUN}/hub.git`,
      dir,
    );
    expect(clone.code, clone.stderr).toBe(0);
    write(dir, 'big.bin', randomBytes(1024 * 1024).toString('base64'));
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '--quiet', '-m', 'big');
    const before = sh(hub, 'for-each-ref');
    const push = await git(dir, ...bearer(token()), 'push', 'origin', 'HEAD:refs/heads/agent/a');
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/HTTP 413/);
    expect(sh(hub, 'for-each-ref')).toBe(before);
    // The killed receive-pack left no quarantined objects behind.
    expect(readdirSync(path.join(hub, 'objects')).filter((name) => name.startsWith('incoming-'))).toEqual([]);
    // Small pushes still work.
    await git(dir, 'reset', '--quiet', '--hard', 'HEAD~1');
    write(dir, 'small.txt', 'small\n');
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '--quiet', '-m', 'small');
    const small = await git(dir, ...bearer(token()), 'push', 'origin', 'HEAD:refs/heads/agent/a');
    expect(small.code, small.stderr).toBe(0);
  });

  it('counts decoded bytes: a small gzip body that expands past the limit gets 413', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(256 * 1024);
    for (const service of ['git-upload-pack', 'git-receive-pack']) {
      // A push's bomb starts with a valid update of the agent's own branch.
      const main = sh(hub, 'rev-parse', 'refs/heads/main');
      const line = `${'0'.repeat(40)} ${main} refs/heads/agent/a\0report-status\n`;
      const head =
        service === 'git-receive-pack' ? `${(line.length + 4).toString(16).padStart(4, '0')}${line}0000` : '';
      const before = sh(hub, 'for-each-ref');
      const response = await fetch(`${server.url}/${RUN}/hub.git/${service}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token()}`,
          'content-type': `application/x-${service}-request`,
          'content-encoding': 'gzip',
        },
        body: gzipSync(Buffer.concat([Buffer.from(head), Buffer.alloc(8 * 1024 * 1024)])),
      });
      expect(response.status, service).toBe(413);
      await response.text();
      expect(sh(hub, 'for-each-ref')).toBe(before);
    }
  });
});
