/**
 * A real git remote for the tests: bare repositories under one folder, served over git's smart HTTP
 * protocol by `git http-backend` (one CGI process per request). Every request is recorded with the
 * Authorization header it carried, so a test can tell where a token went. Mountable under a prefix of
 * another server (the fake forge serves its own git beside its API, as a forge does).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SeenGitRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface GitHttp {
  /** The folder holding the bare repositories (`<root>/<owner>/<name>.git`). */
  root: string;
  seen: SeenGitRequest[];
  /** Serves `req` when its path starts with `prefix`; false when it is not a git request. */
  handle(req: IncomingMessage, res: ServerResponse, prefix: string): boolean;
}

export function gitHttp(root = mkdtempSync(path.join(tmpdir(), 'colony-git-remote-'))): GitHttp {
  const seen: SeenGitRequest[] = [];
  return {
    root,
    seen,
    handle(req, res, prefix) {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!url.pathname.startsWith(`${prefix}/`)) return false;
      const pathInfo = decodeURIComponent(url.pathname.slice(prefix.length));
      if (!/\/(info\/refs|git-upload-pack|git-receive-pack)$/.test(pathInfo)) return false;
      seen.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
      const child = spawn('git', ['http-backend'], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: root,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: '1',
          PATH_INFO: pathInfo,
          REQUEST_METHOD: req.method ?? 'GET',
          QUERY_STRING: url.search.replace(/^\?/, ''),
          CONTENT_TYPE: req.headers['content-type'] ?? '',
          ...(req.headers['content-encoding']
            ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
            : {}),
          // Enables receive-pack (the push).
          REMOTE_USER: 'tester',
          REMOTE_ADDR: '127.0.0.1',
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      req.pipe(child.stdin);
      let head = Buffer.alloc(0);
      let headerDone = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (headerDone) {
          res.write(chunk);
          return;
        }
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        headerDone = true;
        let status = 200;
        for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon).trim();
          const value = line.slice(colon + 1).trim();
          if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
          else res.setHeader(name, value);
        }
        res.statusCode = status;
        res.write(head.subarray(end + 4));
      });
      child.on('close', () => {
        if (!headerDone) res.statusCode = 500;
        res.end();
      });
      return true;
    },
  };
}

export interface GitServer {
  git: GitHttp;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** A server that is only a git remote (no forge API), another host than the forge's; `root`: serve these repositories. */
export async function startGitServer(root?: string): Promise<GitServer> {
  const git = gitHttp(root);
  const server = createServer((req, res) => {
    if (!git.handle(req, res, '')) {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    git,
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
