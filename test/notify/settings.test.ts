import { describe, expect, it } from 'vitest';
import { notifySecrets, resolveNotifySettings, webhookTarget } from '../../src/notify/settings.js';

const SECRET = 'a-notify-secret-of-some-length';

describe('notify settings', () => {
  it('takes the flag over the file, the secret from the environment over the file', () => {
    const r = resolveNotifySettings(
      'https://hooks.example.com/services/T0/B0/tok3nT0k3nTok3n?x=1',
      {
        url: 'https://other.example.com/',
        secret: 'file-secret-0123456789',
        events: ['run_finished'],
        timeoutMs: 900,
      },
      { COLONY_NOTIFY_SECRET: SECRET },
    );
    if (!r.ok || !r.value) throw new Error('expected settings');
    expect(r.value.url?.host).toBe('hooks.example.com');
    expect(r.value.secret).toBe(SECRET);
    expect([...r.value.kinds]).toEqual(['run_finished']);
    expect(r.value.timeoutMs).toBe(900);
    expect(r.value.desktop).toBe(true);
    // The log names the host only; the scrubber gets the URL, its path and query, its token, the secret.
    expect(webhookTarget(r.value.url as URL)).toBe('webhook:hooks.example.com');
    const secrets = notifySecrets(r.value);
    expect(secrets).toContain('https://hooks.example.com/services/T0/B0/tok3nT0k3nTok3n?x=1');
    expect(secrets).toContain('tok3nT0k3nTok3n');
    expect(secrets).toContain(SECRET);
  });

  it('is off without a URL; "desktop" means no webhook', () => {
    expect(resolveNotifySettings(undefined, undefined, {})).toEqual({ ok: true, value: null });
    // A file's secret and filters wait for a run given --notify URL.
    expect(resolveNotifySettings(undefined, { secret: SECRET, timeoutMs: 10 }, {})).toEqual({
      ok: true,
      value: null,
    });
    const desktop = resolveNotifySettings('desktop', undefined, {});
    expect(desktop.ok && desktop.value?.url).toBe(null);
  });

  it('refuses what it cannot use, as data', () => {
    const problem = (url: string | undefined, env: NodeJS.ProcessEnv = {}, config?: object) => {
      const r = resolveNotifySettings(url, config as never, env);
      return r.ok ? null : r.error;
    };
    expect(problem('ftp://h/x')).toMatch(/http or https/);
    expect(problem('not a url')).toMatch(/http\(s\) URL/);
    expect(problem('https://user:pw@h/x')).toMatch(/no user or password/);
    expect(problem('https://h/x', { COLONY_NOTIFY_SECRET: 'short' })).toMatch(/at least 16/);
  });
});
