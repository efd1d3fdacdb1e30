/**
 * `--max-open-workflows N` / config `limits.maxOpenWorkflows` (issue 32, background runs): the lead's
 * limit on open workflow runs reaches the orchestrated spec (RunSpec.maxOpenWorkflows); unset, the
 * spec leaves it out (the default of 10 is applied where the lead's runs are counted).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../../src/cli/config.js';
import { prepareRun } from '../../src/cli/new-run.js';
import { createUserRepo } from '../helpers/user-repo.js';

const RUNNABLE = { sandbox: 'off', model: 'gpt-5-mini', verify: 'true' } as const;
const KEYS = { OPENAI_API_KEY: 'sk-test' };
const repo = () => createUserRepo({ 'README.md': '# open runs\n' }, 'colony-open-runs-').dir;

describe('the open workflow runs of a lead', () => {
  it('reach the orchestrated spec from the flag (merged into config limits)', async () => {
    const loaded = loadConfig({ flags: { limits: { maxOpenWorkflows: 3 } }, env: {}, cwd: process.cwd() });
    if (!loaded.ok) throw new Error(loaded.error);
    const prepared = await prepareRun(
      {
        repo: repo(),
        goal: 'g',
        config: { ...loaded.config, ...RUNNABLE },
        topology: 'orchestrated',
        leadDelegation: 'programs',
      },
      KEYS,
    );
    expect(prepared.spec.maxOpenWorkflows).toBe(3);
  });

  it('stay unset when not given', async () => {
    const prepared = await prepareRun(
      { repo: repo(), goal: 'g', config: { ...DEFAULT_CONFIG, ...RUNNABLE }, topology: 'orchestrated' },
      KEYS,
    );
    expect(prepared.spec.maxOpenWorkflows).toBeUndefined();
  });
});
