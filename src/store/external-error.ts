/**
 * One actionable line for a failure to open an external database (COLONY_DATABASE_URL): what the URL
 * names (password masked), what went wrong, and what to change. Raw driver errors ("connect
 * ECONNREFUSED 127.0.0.1:1", "getaddrinfo ENOTFOUND base") do not say which setting is at fault.
 */
const GUIDE = 'docs/storage.md, "A shared Postgres for a fleet"';

export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

function target(url: string): { host: string; port: string; user: string; database: string } | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return null;
    return {
      host: u.hostname || 'localhost',
      port: u.port || '5432',
      user: decodeURIComponent(u.username),
      database: decodeURIComponent(u.pathname.replace(/^\//, '')),
    };
  } catch {
    return null;
  }
}

function advice(url: string, err: { code?: string; message?: string }): string {
  const t = target(url);
  const message = err.message ?? String(err);
  if (!t) return 'not a postgres:// URL (expected postgres://user:password@host:port/database)';
  const at = `${t.host}:${t.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `connection refused at ${at}: is Postgres running there, listening on that address (listen_addresses) and port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${t.host} not found (DNS): check the host in the URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${at} (${err.code}): check the host, and any firewall between this machine and it`;
    case '28P01':
      return `${message}: check the user and password in the URL`;
    case '28000':
      return /no pg_hba\.conf entry/.test(message)
        ? `${message}: the server refuses this client; add a "host" (or "hostssl") line for it to pg_hba.conf and reload`
        : `${message}: check the user in the URL`;
    case '3D000':
      return `${message}: create it first (CREATE DATABASE ${t.database} OWNER ${t.user}); Colony does not create databases`;
    case '42501':
      return `${message}: the user needs CREATE on database ${t.database} (owning it is simplest)`;
  }
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(err.code ?? ''))
    return `${message}: the server's certificate is not trusted; name its CA with sslrootcert=/path/ca.pem in the URL (this driver checks it for sslmode=require too), or use sslmode=no-verify to skip the check`;
  if (/SSL/i.test(message))
    return `${message}: check sslmode (and sslrootcert) in the URL against the server's ssl setting`;
  return message;
}

/** `store: <source> <masked url>: <what went wrong and what to do> (<guide>)`. */
export function describeExternalError(url: string, source: string, err: unknown): string {
  const e = (err ?? {}) as { code?: string; message?: string };
  return `store: ${source}=${maskUrl(url)}: ${advice(url, e)} (${GUIDE})`;
}
