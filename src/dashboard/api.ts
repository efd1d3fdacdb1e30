/// <reference lib="dom" />
/**
 * Talking to the server. The token arrives once in the URL fragment (#token=…, printed by
 * `colony serve`; fragments are never sent to servers or in Referer headers), is kept in
 * sessionStorage (this tab only) and removed from the address bar.
 */

const KEY = 'colony.token';

export function captureToken(): void {
  const m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (m?.[1]) {
    sessionStorage.setItem(KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
}

export function token(): string | null {
  return sessionStorage.getItem(KEY);
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

async function call<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = {};
  const t = token();
  if (t) headers.authorization = `Bearer ${t}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as { error?: string };
    if (!res.ok) return { ok: false, status: res.status, error: json.error ?? res.statusText };
    return { ok: true, value: json as T };
  } catch (err) {
    return { ok: false, status: 0, error: (err as Error).message };
  }
}

export const getJson = <T>(path: string) => call<T>('GET', path);
export const postJson = <T>(path: string, body: unknown = {}) => call<T>('POST', path, body);
export const patchJson = <T>(path: string, body: unknown) => call<T>('PATCH', path, body);

/**
 * EventSource cannot send headers: the token goes in the query (accepted for reads only). Also on
 * loopback, where `colony serve --token-for-reads` makes the stream need it.
 */
export function streamUrl(path: string): string {
  const t = token();
  if (!t) return path;
  return `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(t)}`;
}
