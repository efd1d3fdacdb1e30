/**
 * A fake forge of our own: one HTTP server speaking GitHub's, GitLab's or Gitea's REST API for the
 * endpoints Colony uses (routes.ts), and serving the repository's git over smart HTTP beside it at
 * `/<owner>/<name>.git`, as a forge does (a push there needs the token, as Basic auth).
 *
 * EVERY API request is checked against the forge's description (descriptions.ts) before it is
 * answered: a request the description rejects is answered 400 and recorded in `violations`, which
 * each test asserts empty (expectNoViolations), so such a request fails the test.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ForgeKind } from '../../../src/forge/types.js';
import { type DescriptionSource, descriptionFor } from './descriptions.js';
import { type GitHttp, gitHttp } from './git-http.js';
import type { FakeIssue } from './issue-routes.js';
import { type ForgeState, type OpenedPull, route } from './routes.js';

export interface ForgeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
  status: number;
}

export interface FakeForgeOptions {
  kind: ForgeKind;
  token: string;
  /** `owner/name` (GitLab: `group/…/project`). */
  repoPath: string;
  defaultBranch?: string;
  /** Labels already on the repository (Gitea adds only these). */
  labels?: string[];
  /** User names the forge knows (GitLab reviewers are looked up). */
  users?: string[];
  /** Issues, numbered from 1 in this order (`pullRequest`: GitHub lists it among issues). */
  issues?: Array<{ title: string; body?: string; labels?: string[]; pullRequest?: boolean }>;
}

export interface FakeForge {
  kind: ForgeKind;
  origin: string;
  apiBase: string;
  /** The repository's git URL on this forge (push here carries the token). */
  gitUrl: string;
  /** The bare repository behind gitUrl. */
  bare: string;
  git: GitHttp;
  description: DescriptionSource;
  requests: ForgeRequest[];
  violations: string[];
  pulls: OpenedPull[];
  issues: FakeIssue[];
  /**
   * While on, a new comment is not answered: the request is held (`held()` counts them) until
   * `dropHeld()` cuts its connection, unanswered and not created (a forge that died mid-request), or
   * `createHeld()` creates the comment and answers.
   */
  holdComments(on: boolean): void;
  held(): number;
  dropHeld(): void;
  /** Creates the held comments and answers (a watch killed meanwhile never reads the answer). */
  createHeld(): void;
  /** The next request matching `method` and `path` is answered `status` with `body`. */
  failNext(method: string, pathPattern: RegExp, status: number, body: unknown): void;
  close(): Promise<void>;
}

const API_PATH: Readonly<Record<ForgeKind, string>> = {
  github: '/api/v3',
  gitlab: '/api/v4',
  gitea: '/api/v1',
};

export async function startFakeForge(options: FakeForgeOptions): Promise<FakeForge> {
  const { validator, source } = descriptionFor(options.kind);
  const git = gitHttp();
  const bare = path.join(git.root, `${options.repoPath}.git`);
  execFileSync('git', ['init', '--quiet', '--bare', '-b', options.defaultBranch ?? 'main', bare]);
  const requests: ForgeRequest[] = [];
  const violations: string[] = [];
  const failures: Array<{ method: string; path: RegExp; status: number; body: unknown }> = [];
  const state: ForgeState = {
    kind: options.kind,
    repoPath: options.repoPath,
    defaultBranch: options.defaultBranch ?? 'main',
    bare,
    labels: (options.labels ?? []).map((name, i) => ({ id: 100 + i, name })),
    users: (options.users ?? []).map((username, i) => ({ id: 10 + i, username })),
    pulls: [],
    issues: (options.issues ?? []).map((issue, i) => ({
      number: i + 1,
      title: issue.title,
      body: issue.body ?? '',
      labels: issue.labels ?? [],
      open: true,
      pullRequest: issue.pullRequest === true,
      comments: [],
    })),
    nextCommentId: 9001,
    origin: '',
  };
  let holding = false;
  const held: Array<{ res: ServerResponse; answer: () => void }> = [];
  const apiPath = API_PATH[options.kind];
  const basic = (user: string) => `Basic ${Buffer.from(`${user}:${options.token}`).toString('base64')}`;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', state.origin);
    if (/\/(info\/refs|git-upload-pack|git-receive-pack)$/.test(url.pathname)) {
      // A push needs the token (any user name beside it, as forges accept); reads are public.
      const pushing =
        url.searchParams.get('service') === 'git-receive-pack' || url.pathname.endsWith('/git-receive-pack');
      const auth = req.headers.authorization ?? '';
      const user =
        Buffer.from(auth.replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':')[0] ?? '';
      if (pushing && (!auth.startsWith('Basic ') || auth !== basic(user))) {
        git.seen.push({
          method: req.method ?? '',
          path: url.pathname,
          authorization: req.headers.authorization,
        });
        res.writeHead(401, { 'www-authenticate': 'Basic realm="fake forge"' }).end('unauthorized');
        return;
      }
      if (!git.handle(req, res, '')) res.writeHead(404).end('not found');
      return;
    }
    const text = await readBody(req);
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const record: ForgeRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body,
      status: 0,
    };
    requests.push(record);
    const send = (status: number, json: unknown) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    if (!url.pathname.startsWith(`${apiPath}/`)) return send(404, { message: 'Not Found' });
    const apiRelative = url.pathname.slice(apiPath.length);
    const problems = validator.validate({
      method: record.method,
      path: apiRelative,
      query: url.searchParams,
      contentType: req.headers['content-type'],
      body,
    });
    if (problems.length > 0) {
      violations.push(...problems.map((p) => `${validator.name}: ${p}`));
      return send(400, { message: `request rejected by ${validator.name}`, errors: problems });
    }
    if (!authorized(options.kind, req, options.token)) return send(401, unauthorized(options.kind));
    if (holding && record.method === 'POST' && /\/issues\/\d+\/(comments|notes)$/.test(apiRelative)) {
      held.push({
        res,
        answer: () => send(201, route(state, record.method, apiRelative, url.searchParams, body).json),
      });
      return;
    }
    const failure = failures.findIndex((f) => f.method === record.method && f.path.test(apiRelative));
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1);
      return send(f?.status ?? 500, f?.body);
    }
    const answer = route(state, record.method, apiRelative, url.searchParams, body);
    return send(answer.status, answer.json);
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      violations.push(`fake forge crashed: ${String(error)}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.origin = `http://127.0.0.1:${port}`;
  return {
    kind: options.kind,
    origin: state.origin,
    apiBase: `${state.origin}${apiPath}`,
    gitUrl: `${state.origin}/${options.repoPath}.git`,
    bare,
    git,
    description: source,
    requests,
    violations,
    pulls: state.pulls,
    issues: state.issues,
    holdComments(on) {
      holding = on;
    },
    held: () => held.length,
    dropHeld() {
      for (const { res } of held.splice(0)) res.socket?.destroy();
    },
    createHeld() {
      for (const { answer } of held.splice(0)) answer();
    },
    failNext(method, pathPattern, status, body) {
      failures.push({ method, path: pathPattern, status, body });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function authorized(kind: ForgeKind, req: IncomingMessage, token: string): boolean {
  const auth = req.headers.authorization;
  if (kind === 'gitlab') return auth === `Bearer ${token}` || req.headers['private-token'] === token;
  return auth === `Bearer ${token}` || auth === `token ${token}`;
}

/** Each forge's own 401 answer. */
function unauthorized(kind: ForgeKind): unknown {
  if (kind === 'github')
    return { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' };
  if (kind === 'gitlab') return { message: '401 Unauthorized' };
  return { message: 'user does not exist [uid: 0, name: ]', url: 'https://gitea.example/api/swagger' };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
