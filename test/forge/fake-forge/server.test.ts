/**
 * The fake forge refuses a request its description rejects (400, recorded in `violations`, which the
 * publish tests assert empty), also when it comes from Colony's own adapter: a GitHub adapter whose
 * body is corrupted on the way fails to open its pull request, and the violation names the field.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { githubApi } from '../../../src/forge/github.js';
import { type FakeForge, startFakeForge } from './server.js';

const TOKEN = 'tok-123456';
let forge: FakeForge | undefined;

afterEach(async () => {
  await forge?.close();
  forge = undefined;
});

describe('the fake forge', () => {
  it('answers 400 to a request the description rejects and records it', async () => {
    forge = await startFakeForge({ kind: 'github', token: TOKEN, repoPath: 'acme/widgets' });
    const response = await fetch(`${forge.apiBase}/repos/acme/widgets/pulls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 't', base: 'main', draft: 'yes' }),
    });
    expect(response.status).toBe(400);
    expect(forge.violations.join('\n')).toMatch(/must have required property 'head'/);
    expect(forge.violations.join('\n')).toMatch(/\/draft must be boolean/);
    expect(forge.pulls).toEqual([]);
  });

  it("fails Colony's adapter when what it sends is not what the description allows", async () => {
    forge = await startFakeForge({ kind: 'github', token: TOKEN, repoPath: 'acme/widgets' });
    const target = {
      kind: 'github' as const,
      apiBase: forge.apiBase,
      repoPath: 'acme/widgets',
      gitHost: null,
    };
    // The adapter's body with `draft` turned into a string on the way out.
    const corrupting: typeof fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null;
      if (body && 'draft' in body) body.draft = String(body.draft);
      return fetch(input, { ...init, ...(body ? { body: JSON.stringify(body) } : {}) });
    };
    const api = githubApi(target, TOKEN, corrupting);
    const opened = await api.openPullRequest({
      head: 'colony/x',
      base: 'main',
      title: 't',
      body: 'b',
      draft: true,
      labels: [],
      reviewers: [],
    });
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.error).toMatch(/400: request rejected by GitHub/);
    expect(forge.violations).toEqual([
      expect.stringMatching(/POST \/repos\/\{owner\}\/\{repo\}\/pulls: body \/draft must be boolean/),
    ]);
  });

  it('refuses a push to its own git without the token', async () => {
    forge = await startFakeForge({ kind: 'gitea', token: TOKEN, repoPath: 'acme/widgets' });
    const refs = await fetch(`${forge.gitUrl}/info/refs?service=git-receive-pack`);
    expect(refs.status).toBe(401);
    const reads = await fetch(`${forge.gitUrl}/info/refs?service=git-upload-pack`);
    expect(reads.status).toBe(200);
  });
});
