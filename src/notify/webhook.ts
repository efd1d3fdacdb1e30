/**
 * One webhook request: POST the JSON body, signed when there is a secret, within a time-out,
 * redirects not followed (the URL's token would go wherever a redirect points). Any 2xx answer is
 * a delivery; anything else is an error as data, in words that never quote the URL.
 */
import { SIGNATURE_HEADER, signBody, TIMESTAMP_HEADER } from './signature.js';

export interface WebhookRequest {
  url: URL;
  secret: string | null;
  timeoutMs: number;
  kind: string;
  body: string;
}

export async function postWebhook(
  request: WebhookRequest,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'colony-notify/1',
    'x-colony-event': request.kind,
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (request.secret) headers[SIGNATURE_HEADER] = signBody(request.secret, timestamp, request.body);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    // The answer's body is not needed: read it away so the connection is freed.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true };
    return { ok: false, error: `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, error: failureText(error, request.timeoutMs) };
  }
}

/** Why a request failed, from the error's name and code only (its message may quote the URL). */
function failureText(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (typeof code === 'string' && /^[A-Z_]{3,40}$/.test(code)) return `network error ${code}`;
  return 'network error';
}
