/**
 * Which forge a remote is on and where its API is (target.ts): the public hosts are known; any other
 * host needs --forge and --forge-api, so a URL in the repository's config never decides where a token
 * goes; the token goes with the push only to the API's own host.
 */
import { describe, expect, it } from 'vitest';
import { parseRemoteUrl, type RemoteUrl } from '../../src/forge/remote-url.js';
import { checkApiBase, resolveTarget } from '../../src/forge/target.js';

function remote(url: string): RemoteUrl {
  const parsed = parseRemoteUrl(url);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

describe('resolveTarget', () => {
  it('knows github.com, gitlab.com and codeberg.org', () => {
    expect(resolveTarget(remote('git@github.com:acme/widgets.git'), {})).toEqual({
      ok: true,
      value: {
        kind: 'github',
        apiBase: 'https://api.github.com',
        repoPath: 'acme/widgets',
        gitHost: 'github.com',
      },
    });
    const gitlab = resolveTarget(remote('https://gitlab.com/g/sub/p.git'), {});
    expect(gitlab.ok && gitlab.value).toMatchObject({
      kind: 'gitlab',
      apiBase: 'https://gitlab.com/api/v4',
      repoPath: 'g/sub/p',
    });
    const codeberg = resolveTarget(remote('https://codeberg.org/acme/w'), {});
    expect(codeberg.ok && codeberg.value).toMatchObject({
      kind: 'gitea',
      apiBase: 'https://codeberg.org/api/v1',
    });
  });

  it('needs the forge and its API for any other host, and says how', () => {
    const unknown = resolveTarget(remote('https://git.example.com/acme/w.git'), {});
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error).toMatch(/add --forge github\|gitlab\|gitea and --forge-api/);
    const noApi = resolveTarget(remote('https://git.example.com/acme/w.git'), { forge: 'gitea' });
    expect(noApi.ok).toBe(false);
    if (!noApi.ok) expect(noApi.error).toMatch(/needs --forge-api.*https:\/\/git\.example\.com\/api\/v1/);
    const wrong = resolveTarget(remote('https://github.com/acme/w.git'), { forge: 'gitlab' });
    expect(wrong.ok).toBe(false);
  });

  it('sends the token with the push only to the host its API is on', () => {
    const same = resolveTarget(remote('https://git.example.com/acme/w.git'), {
      forge: 'gitea',
      apiBase: 'https://git.example.com/api/v1/',
    });
    expect(same.ok && same.value).toEqual({
      kind: 'gitea',
      apiBase: 'https://git.example.com/api/v1',
      repoPath: 'acme/w',
      gitHost: 'git.example.com',
    });
    const other = resolveTarget(remote('https://mirror.example.net/acme/w.git'), {
      forge: 'gitea',
      apiBase: 'https://git.example.com/api/v1',
    });
    expect(other.ok && other.value.gitHost).toBeNull();
  });

  it('reads the repository below a forge installed under a sub-path', () => {
    const sub = resolveTarget(remote('https://example.com/gitea/acme/w.git'), {
      forge: 'gitea',
      apiBase: 'https://example.com/gitea/api/v1',
    });
    expect(sub.ok && sub.value.repoPath).toBe('acme/w');
  });

  it('refuses a path that is not a repository of that forge', () => {
    expect(resolveTarget(remote('https://github.com/acme/widgets/extra.git'), {}).ok).toBe(false);
    expect(resolveTarget(remote('https://gitlab.com/alone.git'), {}).ok).toBe(false);
  });
});

describe('checkApiBase', () => {
  it('takes https anywhere, plain http only on this machine, no credentials', () => {
    expect(checkApiBase('https://git.example.com/api/v1')).toEqual({
      ok: true,
      value: { base: 'https://git.example.com/api/v1', host: 'git.example.com' },
    });
    expect(checkApiBase('http://127.0.0.1:3000/api/v1').ok).toBe(true);
    expect(checkApiBase('http://git.example.com/api/v1').ok).toBe(false);
    expect(checkApiBase('https://u:p@git.example.com/api/v1').ok).toBe(false);
    expect(checkApiBase('https://git.example.com/api/v1?x=1').ok).toBe(false);
    expect(checkApiBase('not a url').ok).toBe(false);
  });
});
