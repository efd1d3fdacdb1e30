/**
 * The server token: generated on first start, kept in $COLONY_HOME/server-token (mode 0600). It is
 * never put in an environment variable, so agents (whose environment is derived from Colony's) do not
 * receive it; see docs/dashboard.md for the one remaining path (an agent's shell reading the file).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_FILE = 'server-token';

export type TokenResult =
  | { ok: true; token: string; path: string; created: boolean }
  | { ok: false; error: string };

export function tokenPath(home: string): string {
  return join(home, TOKEN_FILE);
}

/** Reads the token, creating it (0600) when missing; a group/world-readable file is tightened. */
export function loadOrCreateToken(home: string): TokenResult {
  const path = tokenPath(home);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length >= 32) {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return { ok: true, token, path, created: false };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      return { ok: false, error: `cannot read ${path}: ${(err as Error).message}` };
  }
  try {
    mkdirSync(home, { recursive: true });
    const token = randomBytes(32).toString('base64url');
    writeFileSync(path, `${token}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
    return { ok: true, token, path, created: true };
  } catch (err) {
    return { ok: false, error: `cannot write ${path}: ${(err as Error).message}` };
  }
}

/** Constant-time comparison of a presented token with the real one. */
export function tokenMatches(presented: string | null, token: string): boolean {
  if (presented === null) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
