/** runTopology refuses what `colony run` refuses, before anything is recorded. */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runTopology } from '../../src/library/run.js';
import { createUserRepo } from '../helpers/user-repo.js';

describe('runTopology options', () => {
  const repo = createUserRepo({ 'a.txt': 'one\n' }, 'colony-library-repo-');
  afterAll(() => rmSync(repo.dir, { recursive: true, force: true }));
  const base = { repo: repo.dir, goal: 'change a.txt', env: { PATH: process.env.PATH ?? '' } };

  it('refuses a money budget on a model without prices', async () => {
    const refused = await runTopology({
      ...base,
      model: 'openai-chat:local-llm',
      baseUrl: 'http://127.0.0.1:9/v1',
      budgetUsd: 1,
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error).toContain("cannot limit model 'openai-chat:local-llm': it has no prices");
      expect(refused.runId).toBeUndefined();
    }
  });

  it('refuses a passEnv entry that is not a variable name', async () => {
    const refused = await runTopology({ ...base, model: 'openai-chat:local-llm', passEnv: ['NOT A NAME'] });
    expect(refused).toMatchObject({ ok: false, error: 'passEnv needs variable names, got "NOT A NAME"' });
  });
});
