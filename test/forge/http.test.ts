/**
 * JSON over HTTP to a forge (http.ts): the token's headers only under the API base, no redirect
 * followed, the forge's own message on an error status.
 */
import { describe, expect, it } from 'vitest';
import { forgeHttp } from '../../src/forge/http.js';

interface Call {
  url: string;
  init: RequestInit | undefined;
}

function fake(answer: (url: string) => Response): { fetchImpl: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init });
    return answer(String(input));
  }) as typeof fetch;
  return { fetchImpl, calls };
}

describe('forgeHttp', () => {
  it('sends JSON with the headers to a path below the API base', async () => {
    const { fetchImpl, calls } = fake(() => Response.json({ default_branch: 'main' }));
    const http = forgeHttp('https://git.example.com/api/v1', { authorization: 'token T' }, fetchImpl);
    const got = await http.request('POST', '/repos/a/b/pulls', {
      body: { title: 't' },
      query: { page: '1' },
    });
    expect(got).toEqual({ ok: true, value: { status: 200, json: { default_branch: 'main' } } });
    expect(calls[0]?.url).toBe('https://git.example.com/api/v1/repos/a/b/pulls?page=1');
    expect(calls[0]?.init?.redirect).toBe('manual');
    expect(calls[0]?.init?.headers).toMatchObject({
      authorization: 'token T',
      'content-type': 'application/json',
    });
    expect(calls[0]?.init?.body).toBe('{"title":"t"}');
  });

  it('never sends the token outside the API base', async () => {
    const { fetchImpl, calls } = fake(() => Response.json({}));
    const http = forgeHttp('https://git.example.com/api/v1', { authorization: 'token T' }, fetchImpl);
    for (const path of ['/../../other', '//evil.example/x', 'https://evil.example/x']) {
      const got = await http.request('GET', path);
      expect(got.ok, path).toBe(false);
    }
    expect(calls).toEqual([]);
  });

  it('does not follow a redirect, and says so', async () => {
    const { fetchImpl, calls } = fake(
      () => new Response(null, { status: 301, headers: { location: 'https://evil.example/api' } }),
    );
    const http = forgeHttp('https://git.example.com/api/v1', { authorization: 'token T' }, fetchImpl);
    const got = await http.request('GET', '/repos/a/b');
    expect(got.ok).toBe(false);
    if (!got.ok)
      expect(got.error).toMatch(
        /redirects to https:\/\/evil\.example\/api; Colony does not follow redirects/,
      );
    expect(calls).toHaveLength(1);
  });

  it("gives the forge's own message on an error status, on one line", async () => {
    const { fetchImpl } = fake(() =>
      Response.json(
        {
          message: 'Validation Failed',
          errors: [{ code: 'custom', message: 'A pull request\nalready exists' }],
        },
        { status: 422 },
      ),
    );
    const http = forgeHttp('https://api.github.com', {}, fetchImpl);
    const got = await http.request('POST', '/repos/a/b/pulls', { body: {} });
    expect(got).toEqual({
      ok: false,
      error:
        'POST /repos/a/b/pulls → 422: Validation Failed: [{"code":"custom","message":"A pull request\\nalready exists"}]',
    });
  });

  it('says when the forge cannot be reached', async () => {
    const fetchImpl = (async () => {
      throw Object.assign(new TypeError('fetch failed'), {
        cause: { message: 'connect ECONNREFUSED 127.0.0.1:9' },
      });
    }) as typeof fetch;
    const got = await forgeHttp('http://127.0.0.1:9/api/v4', {}, fetchImpl).request('GET', '/projects/x');
    expect(got).toEqual({
      ok: false,
      error: 'GET /api/v4/projects/x: could not reach 127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9',
    });
  });
});
