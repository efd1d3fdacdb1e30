/**
 * JSON over HTTP to one forge's API. Every request goes to the API base it was made for (checked per
 * request), never follows a redirect (the token would go along to wherever it points), and ends in a
 * Result: the forge's own message on an error status, one line.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../lang/result.js';

export interface ForgeResponse {
  status: number;
  json: unknown;
}

export interface ForgeHttp {
  request(
    method: 'GET' | 'POST',
    path: string,
    options?: { query?: Record<string, string>; body?: unknown },
  ): Promise<Result<ForgeResponse>>;
}

const TIMEOUT_MS = 30_000;
const MAX_MESSAGE = 300;

/** `headers` carry the token; they are sent with requests below `apiBase` only. */
export function forgeHttp(
  apiBase: string,
  headers: Readonly<Record<string, string>>,
  fetchImpl: typeof fetch = fetch,
): ForgeHttp {
  const base = new URL(`${apiBase}/`);
  return {
    async request(method, path, options = {}) {
      const url = new URL(path.replace(/^\//, ''), base);
      if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname))
        return err(`refusing to send the token outside ${apiBase}: ${url.origin}${url.pathname}`);
      for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
      const what = `${method} ${url.pathname}`;
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method,
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headers: {
            accept: 'application/json',
            'user-agent': 'colony',
            ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        });
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        return err(`${what}: could not reach ${base.host}: ${cause ?? (error as Error).message}`);
      }
      const text = await response.text().catch(() => '');
      if (response.status >= 300 && response.status < 400)
        return err(
          `${what}: the forge redirects to ${response.headers.get('location') ?? '(nowhere)'}; Colony does not ` +
            'follow redirects with a token (give the API base it names with --forge-api)',
        );
      let json: unknown = null;
      if (text !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          if (response.ok) return err(`${what}: the answer is not JSON`);
        }
      }
      if (!response.ok) return err(`${what} → ${response.status}: ${messageOf(json, text)}`);
      return ok({ status: response.status, json });
    },
  };
}

/** The forge's own words: GitHub `message` + `errors`, GitLab `message`/`error`, Gitea `message`. */
function messageOf(json: unknown, text: string): string {
  const body = (json ?? {}) as { message?: unknown; error?: unknown; errors?: unknown };
  const parts = [body.message, body.error, body.errors]
    .filter((part) => part !== undefined && part !== null)
    .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)));
  const message = parts.length > 0 ? parts.join(': ') : text || '(no body)';
  return message.replace(/\s+/g, ' ').slice(0, MAX_MESSAGE);
}

const WithDefaultBranch = z.object({ default_branch: z.string().min(1) });

/** The repository's default branch, from the repository (GitHub, Gitea) or project (GitLab) at `path`. */
export async function readDefaultBranch(http: ForgeHttp, path: string): Promise<Result<string>> {
  const got = await http.request('GET', path);
  if (!got.ok) return got;
  const parsed = WithDefaultBranch.safeParse(got.value.json);
  return parsed.success
    ? ok(parsed.data.default_branch)
    : err(`GET ${path}: no default_branch in the answer`);
}
