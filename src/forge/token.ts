/**
 * A forge's token, from its variable, and the header that carries it on a push. The token is read
 * once and handed to the forge's API client and the push, which send it to the target's hosts only.
 */
import { err, ok, type Result } from '../lang/result.js';
import type { RemoteUrl } from './remote-url.js';
import { type ForgeKind, type ForgeTarget, TOKEN_ENV } from './types.js';

export function forgeToken(kind: ForgeKind, env: NodeJS.ProcessEnv): Result<string> {
  const name = TOKEN_ENV[kind];
  const token = env[name]?.trim();
  if (!token) return err(`${name} is not set: a ${kind} token that may push and open pull requests`);
  if (!/^[!-~]+$/.test(token)) return err(`${name} must be one word of printable ASCII`);
  return ok(token);
}

/** The user name each forge accepts beside a token in HTTP basic auth for git. */
const BASIC_USER: Readonly<Record<ForgeKind, string>> = {
  github: 'x-access-token',
  gitlab: 'oauth2',
  gitea: 'colony',
};

/**
 * The push's auth header, when the push goes over https (or http on this machine) to the forge's own
 * git host; null otherwise (an ssh remote, or a host that is not the forge's: the token stays home).
 */
export function pushAuth(
  remote: RemoteUrl,
  target: ForgeTarget,
  token: string,
): { urlPrefix: string; header: string } | null {
  if (
    remote.scheme === 'ssh' ||
    remote.hasPassword ||
    target.gitHost === null ||
    remote.host !== target.gitHost
  )
    return null;
  if (remote.scheme === 'http' && !target.apiBase.startsWith('http://')) return null;
  const basic = Buffer.from(`${BASIC_USER[target.kind]}:${token}`).toString('base64');
  return { urlPrefix: `${remote.scheme}://${remote.host}/`, header: `Authorization: Basic ${basic}` };
}
