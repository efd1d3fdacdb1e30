/** A forge's token from its variable, and the header a push carries it in: to the forge's git host only. */
import { describe, expect, it } from 'vitest';
import { parseRemoteUrl, type RemoteUrl } from '../../src/forge/remote-url.js';
import { forgeToken, pushAuth } from '../../src/forge/token.js';
import type { ForgeTarget } from '../../src/forge/types.js';

function remote(url: string): RemoteUrl {
  const parsed = parseRemoteUrl(url);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const github: ForgeTarget = {
  kind: 'github',
  apiBase: 'https://api.github.com',
  repoPath: 'a/b',
  gitHost: 'github.com',
};

describe('forgeToken', () => {
  it('reads each forge its own variable', () => {
    expect(forgeToken('github', { GITHUB_TOKEN: ' ghp_x ' })).toEqual({ ok: true, value: 'ghp_x' });
    expect(forgeToken('gitlab', { GITHUB_TOKEN: 'ghp_x' })).toEqual({
      ok: false,
      error: 'GITLAB_TOKEN is not set: a gitlab token that may push and open pull requests',
    });
    expect(forgeToken('gitea', { GITEA_TOKEN: 'two words' }).ok).toBe(false);
  });
});

describe('pushAuth', () => {
  it("puts the token in a header for the forge's own git host, over https", () => {
    const auth = pushAuth(remote('https://github.com/a/b.git'), github, 'T0K');
    expect(auth).toEqual({
      urlPrefix: 'https://github.com/',
      header: `Authorization: Basic ${Buffer.from('x-access-token:T0K').toString('base64')}`,
    });
  });

  it('sends no token to another host, over ssh, beside a password, or over http to a remote forge', () => {
    expect(pushAuth(remote('https://evil.example/a/b.git'), github, 'T')).toBeNull();
    expect(pushAuth(remote('git@github.com:a/b.git'), github, 'T')).toBeNull();
    expect(pushAuth(remote('https://u:p@github.com/a/b.git'), github, 'T')).toBeNull();
    expect(pushAuth(remote('http://github.com/a/b.git'), github, 'T')).toBeNull();
    expect(pushAuth(remote('https://github.com/a/b.git'), { ...github, gitHost: null }, 'T')).toBeNull();
  });
});
