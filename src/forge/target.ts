/**
 * Which forge a remote is on and where its API is. The public hosts are known; any other host needs
 * the forge named (`--forge`) and its API base given (`--forge-api`): the token is sent to the API
 * base's host only, so a remote URL alone (written in a repository's config, which Colony does not
 * trust) never decides where a token goes — as a vendor's model key goes only to its vendor's hosts
 * unless the user chose the endpoint (model/models.ts, foreignKeyHost).
 */
import { err, ok, type Result } from '../lang/result.js';
import { isLoopback, type RemoteUrl } from './remote-url.js';
import { FORGE_KINDS, type ForgeKind, type ForgeTarget } from './types.js';

/** The public forges: remote host → forge, API base, and the git host their token may go to. */
export const KNOWN_FORGE_HOSTS: Readonly<Record<string, { kind: ForgeKind; apiBase: string }>> = {
  'github.com': { kind: 'github', apiBase: 'https://api.github.com' },
  'gitlab.com': { kind: 'gitlab', apiBase: 'https://gitlab.com/api/v4' },
  'codeberg.org': { kind: 'gitea', apiBase: 'https://codeberg.org/api/v1' },
};

/** Where a self-hosted forge's API usually is, for the hint in an error. */
const API_PATH: Readonly<Record<ForgeKind, string>> = {
  github: '/api/v3',
  gitlab: '/api/v4',
  gitea: '/api/v1',
};

export interface TargetChoice {
  /** `--forge`: required for a host that is not a known public forge. */
  forge?: ForgeKind;
  /** `--forge-api`: the API base of a self-hosted forge (required with --forge for an unknown host). */
  apiBase?: string;
}

export function isForgeKind(value: string): value is ForgeKind {
  return (FORGE_KINDS as readonly string[]).includes(value);
}

export function resolveTarget(remote: RemoteUrl, choice: TargetChoice): Result<ForgeTarget> {
  const known = KNOWN_FORGE_HOSTS[remote.hostname];
  if (known && choice.forge && choice.forge !== known.kind)
    return err(`${remote.hostname} is ${known.kind}, not ${choice.forge} (leave out --forge)`);
  const kind = choice.forge ?? known?.kind;
  if (!kind)
    return err(
      `cannot tell which forge ${remote.hostname} runs: add --forge github|gitlab|gitea and --forge-api ` +
        `(e.g. --forge gitea --forge-api https://${remote.hostname}${API_PATH.gitea})`,
    );
  let apiBase: string;
  let gitHost: string | null;
  if (choice.apiBase !== undefined) {
    const checked = checkApiBase(choice.apiBase);
    if (!checked.ok) return checked;
    apiBase = checked.value.base;
    // The token goes with the push only to the host its API is on.
    gitHost = checked.value.host === remote.host ? remote.host : null;
  } else if (known) {
    apiBase = known.apiBase;
    gitHost = remote.hostname;
  } else
    return err(
      `--forge ${kind} for ${remote.hostname} needs --forge-api, the API's base URL ` +
        `(e.g. https://${remote.hostname}${API_PATH[kind]}): Colony sends the token only where you say`,
    );
  const repoPath = repoPathFor(kind, belowWebRoot(remote, apiBase));
  if (!repoPath.ok) return repoPath;
  return ok({ kind, apiBase, repoPath: repoPath.value, gitHost });
}

/** An API base URL: https (plain http only on this machine), no credentials, query or fragment. */
export function checkApiBase(text: string): Result<{ base: string; host: string }> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return err(`--forge-api must be a URL, got "${text}"`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname)))
    return err(
      `--forge-api must be https (plain http only on this machine: the token would travel in clear), got ${url.protocol}//${url.host}`,
    );
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return err('--forge-api must not carry a user, password, query or fragment');
  return ok({ base: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, host: url.host.toLowerCase() });
}

/**
 * The remote's path below the forge's web root: a forge installed under a sub-path
 * (https://host/gitea, API https://host/gitea/api/v1) serves `owner/name` at /gitea/owner/name.git.
 */
function belowWebRoot(remote: RemoteUrl, apiBase: string): string {
  const api = new URL(apiBase);
  if (api.host.toLowerCase() !== remote.host) return remote.path;
  const root = api.pathname.replace(/\/api\/v\d+$/, '').replace(/^\/+|\/+$/g, '');
  return root !== '' && remote.path.startsWith(`${root}/`) ? remote.path.slice(root.length + 1) : remote.path;
}

/** GitHub and Gitea name a repository `owner/name`; GitLab a project path of two or more parts. */
function repoPathFor(kind: ForgeKind, path: string): Result<string> {
  const parts = path.split('/');
  const valid = parts.every((p) => p !== '' && p !== '.' && p !== '..' && /^[\w.-]+$/.test(p));
  const count = kind === 'gitlab' ? parts.length >= 2 : parts.length === 2;
  if (!valid || !count)
    return err(
      `the remote's path "${path}" is not a ${kind} repository (${kind === 'gitlab' ? 'group/…/project' : 'owner/name'})`,
    );
  return ok(path);
}
