/**
 * One `git http-backend` process per request, as a CGI program: the request goes in through its
 * environment and stdin, its stdout is CGI headers (`Status:`, `Content-Type:`, …), a blank line and
 * the response body, streamed to the client as it comes.
 *
 * Its environment is Colony's hardened git environment (workspace/git/git.ts: no hooks, no fsmonitor, no
 * user or system config, nothing of Colony's own variables) plus the serving rules below, passed as
 * GIT_CONFIG_* entries, which rank above the hub's config file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { gitEnv } from '../git/git.js';
import { hideRefsFor } from './refs.js';

export interface CgiRequest {
  hubPath: string;
  /** The path below the repository: `/info/refs`, `/git-upload-pack` or `/git-receive-pack`. */
  pathInRepo: string;
  method: string;
  query: string;
  contentType: string;
  agent: string;
  remoteAddress: string;
}

/**
 * - no dumb HTTP (`http.getanyfile`): it would serve any object file, hidden refs' too;
 * - no wants beyond what is advertised: the protocol-v0 upload-pack then checks that every wanted
 *   object is reachable from a ref the agent sees (protocol v2 would serve any object by id, so the
 *   Git-Protocol header is not passed on and clients fall back to v0);
 * - no deletes, and pushed objects are checked (`receive.fsckObjects`);
 * - only main and the agent's own refs are visible (hub-http-refs.ts).
 */
function servingConfig(agent: string): Array<[string, string]> {
  return [
    ['http.getanyfile', 'false'],
    ['http.uploadpack', 'true'],
    ['uploadpack.allowTipSHA1InWant', 'false'],
    ['uploadpack.allowReachableSHA1InWant', 'false'],
    ['uploadpack.allowAnySHA1InWant', 'false'],
    ['receive.denyDeletes', 'true'],
    ['receive.fsckObjects', 'true'],
    ['receive.advertisePushOptions', 'false'],
    ...hideRefsFor(agent).map((value): [string, string] => ['transfer.hideRefs', value]),
  ];
}

/** Appends config entries after those gitEnv already carries (GIT_CONFIG_COUNT/KEY_n/VALUE_n). */
function withConfig(env: Record<string, string>, entries: Array<[string, string]>): Record<string, string> {
  const out = { ...env };
  let count = Number(out.GIT_CONFIG_COUNT ?? 0);
  for (const [key, value] of entries) {
    out[`GIT_CONFIG_KEY_${count}`] = key;
    out[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  out.GIT_CONFIG_COUNT = String(count);
  return out;
}

export function httpBackendEnv(request: CgiRequest): Record<string, string> {
  const hub = path.resolve(request.hubPath);
  const { SSH_AUTH_SOCK: _agentSocket, ...base } = gitEnv();
  return {
    ...withConfig(base, servingConfig(request.agent)),
    GIT_PROJECT_ROOT: path.dirname(hub),
    PATH_INFO: `/${path.basename(hub)}${request.pathInRepo}`,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: request.method,
    QUERY_STRING: request.query,
    CONTENT_TYPE: request.contentType,
    // Enables receive-pack for this request, and names the agent in the hub's reflog.
    REMOTE_USER: request.agent,
    REMOTE_ADDR: request.remoteAddress,
  };
}

const MAX_HEADER_BYTES = 64 * 1024;
/** Output held back while the request is still arriving (progress messages are far smaller). */
const MAX_HELD_BYTES = 1024 * 1024;

export interface CgiOutcome {
  /** The process's exit code (null when killed). */
  code: number | null;
  /** The first lines of its stderr, for a log. */
  stderr: string;
  /** Its headers reached the client (else the caller answers, the response untouched). */
  answered: boolean;
}

/**
 * Runs http-backend for one request and streams its answer into `res`. `prefix` is body already
 * read (then `body` continues it, unless `bodyEnded`); a GET has neither.
 *
 * http-backend writes its `200` headers before it reads the request, so its answer is held back
 * (up to MAX_HELD_BYTES) until the request body is over: a body that fails on the way (too large,
 * bad gzip) then still gets a proper error status from the caller. git sends the whole request
 * before it reads the answer, so holding costs no time. The process is stopped when the client goes
 * away or the body fails.
 */
export function runHttpBackend(
  request: CgiRequest,
  res: ServerResponse,
  input: { prefix?: Buffer; body?: Readable; bodyEnded?: boolean },
): Promise<CgiOutcome> {
  return new Promise((resolve) => {
    const child = spawn('git', ['http-backend'], {
      env: httpBackendEnv(request),
      cwd: path.dirname(path.resolve(request.hubPath)),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const stop = () => stopProcess(child);
    res.on('close', stop);
    // http-backend may stop reading early (an error answer): that is not our error.
    child.stdin.on('error', () => {});

    let bodyOver = !input.body || input.bodyEnded === true;
    let bodyFailed = false;
    let exit: { code: number | null } | null = null;
    if (input.prefix && input.prefix.length > 0) child.stdin.write(input.prefix);
    if (input.body && !bodyOver) {
      input.body.on('error', () => {
        bodyFailed = true;
        stop();
        settle();
      });
      input.body.on('end', () => {
        bodyOver = true;
        release();
        settle();
      });
      input.body.pipe(child.stdin);
    } else {
      child.stdin.end();
    }

    const held: Buffer[] = [];
    let heldBytes = 0;
    let answered = false;
    let stdoutEnded = false;
    const release = () => {
      if (answered || bodyFailed || (!bodyOver && heldBytes <= MAX_HELD_BYTES)) return;
      const parsed = parseCgiHead(Buffer.concat(held));
      if (parsed === null) {
        if (heldBytes > MAX_HEADER_BYTES) stop();
        return;
      }
      answered = true;
      child.stdout.off('data', onData);
      res.writeHead(parsed.status, parsed.headers);
      if (parsed.rest.length > 0) res.write(parsed.rest);
      if (stdoutEnded) res.end();
      else child.stdout.pipe(res);
    };
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      heldBytes += chunk.length;
      release();
    };
    // Done when the process has exited and the request body is over (or failed): a push's
    // receive-pack may exit before the last bytes of the body (after the pack) have been read.
    const settle = () => {
      if (exit === null || (!bodyOver && !bodyFailed)) return;
      resolve({ code: exit.code, stderr: stderr.split('\n').slice(0, 5).join('\n'), answered });
    };
    child.stdout.on('data', onData);
    child.stdout.on('end', () => {
      stdoutEnded = true;
    });
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
      if (child.pid !== undefined) return;
      // Never started: there will be no 'close'.
      exit = { code: null };
      input.body?.unpipe(child.stdin).resume();
      settle();
    });
    child.on('close', (code) => {
      exit = { code };
      // The process reads no more: let the rest of the body run out (it is dropped). Unpiped first:
      // stdin's own error may come after this, and the pipe would pause the body again on it.
      if (!bodyOver && !bodyFailed) input.body?.unpipe(child.stdin).resume();
      release();
      settle();
    });
  });
}

/**
 * SIGTERM first: git removes a push's quarantined objects (`objects/incoming-*`) on a signal it can
 * catch; SIGKILL only if it is still there after a grace period.
 */
function stopProcess(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, 5_000).unref();
}

/** CGI response headers, or null while the blank line that ends them has not arrived. */
export function parseCgiHead(
  data: Buffer,
): { status: number; headers: Record<string, string>; rest: Buffer } | null {
  const crlf = data.indexOf('\r\n\r\n');
  const lf = data.indexOf('\n\n');
  const end =
    crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, size: 4 } : lf >= 0 ? { at: lf, size: 2 } : null;
  if (end === null) return null;
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of data.toString('latin1', 0, end.at).split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') {
      const code = Number.parseInt(value, 10);
      if (code >= 100 && code <= 599) status = code;
    } else {
      headers[name] = value;
    }
  }
  return { status, headers, rest: data.subarray(end.at + end.size) };
}
