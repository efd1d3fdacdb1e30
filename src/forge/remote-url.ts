/**
 * A git remote's URL, read as data: which transport, host and repository path it names. Colony pushes
 * over https, http and ssh only; a local path, `file://`, `git://`, `ext::` or any other transport
 * helper is refused here (and by the push's protocol allow-list, push.ts), because pushing to a local
 * repository runs that repository's hooks.
 */
import { err, ok, type Result } from '../lang/result.js';

export interface RemoteUrl {
  /** The URL git is given, as written. */
  url: string;
  scheme: 'https' | 'http' | 'ssh';
  /** Host name, lower case, without brackets or port. */
  hostname: string;
  /** `hostname[:port]` as an HTTP origin would name it. */
  host: string;
  /** The repository's path on the host: no leading or trailing slash, no `.git`. */
  path: string;
  /** The URL without user name or password: what is printed and logged. */
  display: string;
  /** The URL carries a password (git then sends it; Colony adds no token of its own). */
  hasPassword: boolean;
}

/** `user@host:path` (git's scp-like ssh form): no slash before the colon, not a drive letter. */
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:[\]]+|\[[^\]]+\]):(?!\/\/)(.+)$/;

export function parseRemoteUrl(url: string): Result<RemoteUrl> {
  const text = url.trim();
  if (text === '') return err('the remote has no URL');
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(text))
    return err(
      `refusing remote ${text}: a git transport helper (<transport>::…); Colony pushes over https, http or ssh`,
    );
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    const scp = SCP_LIKE.exec(text);
    if (scp && !text.startsWith('/') && !text.startsWith('.')) {
      const hostname = (scp[2] ?? '').replace(/^\[|\]$/g, '').toLowerCase();
      const path = repoPathOf(scp[3] ?? '');
      if (hostname.length > 1 && path !== '')
        return ok({
          url: text,
          scheme: 'ssh',
          hostname,
          host: hostname,
          path,
          display: `${hostname}:${path}`,
          hasPassword: false,
        });
    }
    return err(`refusing remote ${text}: a local path; Colony pushes over https, http or ssh only`);
  }
  if (scheme !== 'https' && scheme !== 'http' && scheme !== 'ssh')
    return err(`refusing remote ${redact(text)}: ${scheme}:// is not https, http or ssh`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return err(`not a URL: ${redact(text)}`);
  }
  const path = repoPathOf(decodeURIComponent(parsed.pathname));
  if (parsed.hostname === '' || path === '') return err(`no host or repository path in ${redact(text)}`);
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const display = `${scheme}://${parsed.host}${parsed.pathname}`;
  return ok({
    url: text,
    scheme,
    hostname,
    host: parsed.host.toLowerCase(),
    path,
    display,
    hasPassword: parsed.password !== '',
  });
}

/** Whether a host name is this machine (plain http is accepted for it only, where a token goes). */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

function repoPathOf(raw: string): string {
  return raw
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/** A URL with its user name and password taken out (for messages about an unparsable one). */
function redact(text: string): string {
  return text.replace(/\/\/[^/@]*@/, '//');
}
