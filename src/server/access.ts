/**
 * Who may do what. Reading on a loopback bind is open, unless `readsNeedToken` (`colony serve
 * --token-for-reads`): then every API read and the event stream need the token too (the page and
 * its scripts stay open: they hold no run data, and the page reads its token from the URL fragment).
 * Every mutating call needs the token; a non-loopback bind needs the token for everything. On
 * loopback the Host header must name a loopback host too, so a web page using DNS rebinding cannot
 * read runs through the victim's browser.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { tokenMatches } from './token.js';

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.startsWith('::ffff:127.');
  return false;
}

/** The host part of a Host header ("[::1]:7420" → "::1", "localhost:7420" → "localhost"). */
export function hostOfHeader(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(header) ?? /^([^:]+)(?::\d+)?$/.exec(header);
  return m?.[1] ?? null;
}

/** The token a request presents: `Authorization: Bearer T`, or `?token=T` (EventSource cannot set headers). */
export function presentedToken(req: IncomingMessage, url: URL): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length).trim();
  return url.searchParams.get('token');
}

export type AccessDecision = { ok: true } | { ok: false; status: 401 | 403; error: string };

export interface AccessPolicy {
  token: string;
  /** The host the server is bound to. */
  bindHost: string;
  /** Reads of the API (and its event stream) need the token on loopback too. */
  readsNeedToken?: boolean;
}

export function decideAccess(
  policy: AccessPolicy,
  req: IncomingMessage,
  url: URL,
  mutating: boolean,
): AccessDecision {
  const loopback = isLoopbackHost(policy.bindHost);
  if (loopback) {
    const host = hostOfHeader(req.headers.host);
    if (host === null || !isLoopbackHost(host))
      return {
        ok: false,
        status: 403,
        error: 'this server only answers requests addressed to a loopback host',
      };
  }
  const apiRead = url.pathname.startsWith('/api/');
  if (!mutating && loopback && !(policy.readsNeedToken && apiRead)) return { ok: true };
  // Mutations only accept the header: a token in a URL could be replayed from logs or history.
  const presented = mutating
    ? req.headers.authorization?.startsWith('Bearer ')
      ? req.headers.authorization.slice('Bearer '.length).trim()
      : null
    : presentedToken(req, url);
  if (tokenMatches(presented, policy.token)) return { ok: true };
  return {
    ok: false,
    status: 401,
    error: mutating
      ? 'this action needs the server token (Authorization: Bearer <token>; see colony serve)'
      : loopback
        ? 'this server needs the token for reading too (colony serve --token-for-reads): ' +
          'Authorization: Bearer <token>, or ?token=<token> for the event stream'
        : 'this server is bound to a non-loopback host: every request needs the server token',
  };
}
