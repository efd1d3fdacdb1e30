/** The adapter for each forge: its REST API for one repository, with the token that forge accepts. */
import { giteaApi } from './gitea.js';
import { githubApi } from './github.js';
import { gitlabApi } from './gitlab.js';
import type { ForgeApi, ForgeKind, ForgeTarget } from './types.js';

export type ApiFactory = (target: ForgeTarget, token: string) => ForgeApi;

export const FORGE_APIS: Readonly<Record<ForgeKind, ApiFactory>> = {
  github: (target, token) => githubApi(target, token),
  gitlab: (target, token) => gitlabApi(target, token),
  gitea: (target, token) => giteaApi(target, token),
};

/** The API of `target`'s forge; the token goes to `target.apiBase` only (http.ts checks each request). */
export function forgeApiFor(target: ForgeTarget, token: string): ForgeApi {
  return FORGE_APIS[target.kind](target, token);
}
