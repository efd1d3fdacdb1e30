/**
 * The adapters' issue operations on each forge (`colony watch`): the open issues with a label, oldest
 * first, never a pull request (GitHub lists those among issues); an issue's comments; a new comment.
 * Every request is checked against the forge's description by the fake forge (a violation fails).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { forgeApiFor } from '../../src/forge/index.js';
import type { ForgeKind } from '../../src/forge/types.js';
import { type FakeForge, startFakeForge } from '../forge/fake-forge/server.js';

const TOKEN = 'issues-token-0042';
let forge: FakeForge | null = null;

afterEach(async () => {
  const violations = forge?.violations ?? [];
  await forge?.close();
  forge = null;
  expect(violations).toEqual([]);
});

describe.each<{ kind: ForgeKind; repoPath: string }>([
  { kind: 'github', repoPath: 'acme/hello' },
  { kind: 'gitlab', repoPath: 'acme/tools/hello' },
  { kind: 'gitea', repoPath: 'acme/hello' },
])('issues on $kind', ({ kind, repoPath }) => {
  it('lists labelled open issues (no pull requests), reads and adds comments', async () => {
    forge = await startFakeForge({
      kind,
      token: TOKEN,
      repoPath,
      issues: [
        { title: 'Fix the parser', body: 'It fails on empty input.', labels: ['colony', 'bug'] },
        { title: 'Not for Colony', labels: ['bug'] },
        { title: 'A pull request', labels: ['colony'], pullRequest: true },
        { title: 'Add a changelog', labels: ['colony'] },
      ],
    });
    const api = forgeApiFor({ kind, apiBase: forge.apiBase, repoPath, gitHost: null }, TOKEN);
    const issues = await api.listIssues('colony');
    expect(issues).toEqual({
      ok: true,
      value: [
        expect.objectContaining({ number: 1, title: 'Fix the parser', body: 'It fails on empty input.' }),
        expect.objectContaining({ number: 4, title: 'Add a changelog', body: '' }),
      ],
    });
    expect(await api.listComments(1)).toEqual({ ok: true, value: [] });
    const posted = await api.addComment(1, 'Colony took this issue.');
    expect(posted.ok).toBe(true);
    expect(await api.listComments(1)).toEqual({
      ok: true,
      value: [{ id: expect.any(Number), body: 'Colony took this issue.' }],
    });
    expect(forge.issues[0]?.comments).toEqual([expect.objectContaining({ body: 'Colony took this issue.' })]);
    expect(forge.issues[3]?.comments).toEqual([]);
  });

  it('gives the forge error line on a bad token', async () => {
    forge = await startFakeForge({
      kind,
      token: TOKEN,
      repoPath,
      issues: [{ title: 'x', labels: ['colony'] }],
    });
    const api = forgeApiFor({ kind, apiBase: forge.apiBase, repoPath, gitHost: null }, 'wrong-token');
    const listed = await api.listIssues('colony');
    expect(listed.ok).toBe(false);
    if (!listed.ok) expect(listed.error).toMatch(/→ 401: /);
    const commented = await api.addComment(1, 'hello');
    expect(commented.ok).toBe(false);
    expect(forge.issues[0]?.comments).toEqual([]);
  });
});
