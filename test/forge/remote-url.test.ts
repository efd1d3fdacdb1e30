/** A remote's URL read as data (remote-url.ts): https, http and ssh only; credentials never shown. */
import { describe, expect, it } from 'vitest';
import { isLoopback, parseRemoteUrl } from '../../src/forge/remote-url.js';

describe('parseRemoteUrl', () => {
  it('reads https, http, ssh and scp-like remotes', () => {
    expect(parseRemoteUrl('https://github.com/acme/widgets.git')).toEqual({
      ok: true,
      value: {
        url: 'https://github.com/acme/widgets.git',
        scheme: 'https',
        hostname: 'github.com',
        host: 'github.com',
        path: 'acme/widgets',
        display: 'https://github.com/acme/widgets.git',
        hasPassword: false,
      },
    });
    const scp = parseRemoteUrl('git@gitlab.com:group/sub/project.git');
    expect(scp.ok && scp.value).toMatchObject({
      scheme: 'ssh',
      hostname: 'gitlab.com',
      path: 'group/sub/project',
    });
    const ssh = parseRemoteUrl('ssh://git@codeberg.org:2222/acme/w.git');
    expect(ssh.ok && ssh.value).toMatchObject({ scheme: 'ssh', host: 'codeberg.org:2222', path: 'acme/w' });
    const local = parseRemoteUrl('http://127.0.0.1:3000/acme/widgets');
    expect(local.ok && local.value).toMatchObject({
      scheme: 'http',
      host: '127.0.0.1:3000',
      path: 'acme/widgets',
    });
  });

  it('keeps a password out of what is shown and says one is there', () => {
    const parsed = parseRemoteUrl('https://me:s3cret@github.com/acme/widgets.git');
    expect(parsed.ok && parsed.value.display).toBe('https://github.com/acme/widgets.git');
    expect(parsed.ok && parsed.value.hasPassword).toBe(true);
    const bad = parseRemoteUrl('git://me:s3cret@example.com/x');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).not.toContain('s3cret');
  });

  it('refuses local paths, file://, git://, ext:: and other transports', () => {
    for (const [url, message] of [
      ['/srv/git/widgets.git', /a local path/],
      ['./widgets', /a local path/],
      ['file:///srv/git/widgets.git', /file:\/\/ is not https, http or ssh/],
      ['git://example.com/widgets.git', /git:\/\/ is not/],
      ['ext::sh -c id', /a git transport helper/],
      ['fd::3', /a git transport helper/],
      ['', /no URL/],
      ['https://example.com/', /no host or repository path/],
    ] as const) {
      const parsed = parseRemoteUrl(url);
      expect(parsed.ok, url).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(message);
    }
  });
});

describe('isLoopback', () => {
  it('is this machine only', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'].every(isLoopback)).toBe(true);
    expect(['example.com', '10.0.0.1', 'localhost.example.com', '127.0.0.1.nip.io'].some(isLoopback)).toBe(
      false,
    );
  });
});
