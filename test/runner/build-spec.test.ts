/**
 * The one spec builder (src/runner/build-spec.ts): a bad option is refused as data, with a clear
 * message and the problem's kind, before anything is recorded; and `colony run` (flags and config
 * through cli/new-run.ts) and the library (runTopology's options) get the same spec for the same
 * inputs.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { type ColonyConfig, DEFAULT_CONFIG } from '../../src/cli/config.js';
import { prepareRun } from '../../src/cli/new-run.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { buildRunSpec, RUN_DEFAULTS, type SpecOptions } from '../../src/runner/index.js';
import { createUserRepo } from '../helpers/user-repo.js';

const repo = createUserRepo({ 'a.txt': 'one\n' }, 'colony-build-spec-');
afterAll(() => rmSync(repo.dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };
const base: SpecOptions = { repo: repo.dir, goal: 'change a.txt', model: 'gpt-5-mini', sandbox: 'off' };

async function refusal(options: Partial<SpecOptions>, withEnv: NodeJS.ProcessEnv = env) {
  const built = await buildRunSpec({ ...base, ...options }, withEnv);
  expect(built.ok).toBe(false);
  return built.ok ? { error: '', kind: '' } : { error: built.error, kind: built.problem.kind };
}

describe('buildRunSpec refuses a bad option with a clear message', () => {
  it('an empty goal, a workflow without its topology, peers without verify', async () => {
    expect(await refusal({ goal: '  ' })).toEqual({ kind: 'empty-goal', error: 'goal must not be empty' });
    expect(await refusal({ topology: 'workflow' })).toMatchObject({ kind: 'workflow-pairing' });
    expect(await refusal({ topology: 'solo', workflow: { file: 'w.js' } })).toMatchObject({
      kind: 'workflow-pairing',
      error: 'a workflow program (workflow.file) goes with topology "workflow"',
    });
    expect(await refusal({ topology: 'peers' })).toEqual({
      kind: 'peers-without-verify',
      error: 'topology "peers" needs verify (merges and the result are checked with it)',
    });
  });

  it('a passEnv entry that is not a name, an unreadable workflow program, a folder that is no repository', async () => {
    expect(await refusal({ passEnv: ['OK_NAME', 'NOT A NAME'] })).toEqual({
      kind: 'env-name',
      error: 'passEnv needs variable names, got "NOT A NAME"',
    });
    const missing = await refusal({ workflow: { file: join(tmpdir(), 'colony-no-such-program.js') } });
    expect(missing.kind).toBe('workflow-program');
    expect(missing.error).toMatch(/cannot read workflow file .*colony-no-such-program\.js/);
    const notRepo = await refusal({ repo: tmpdir() });
    expect(notRepo.kind).toBe('repo');
    expect(await refusal({ base: 'no-such-ref' })).toMatchObject({ kind: 'repo' });
  });

  it('a value the stored spec refuses, named by its field', async () => {
    expect(await refusal({ maxSteps: 0 })).toMatchObject({
      kind: 'invalid-spec',
      error: expect.stringMatching(/^invalid run options at maxSteps: /),
    });
  });

  it("the run's model or a profile's without a key, an unknown scenario", async () => {
    const noKey = await refusal({}, { PATH: env.PATH });
    expect(noKey.kind).toBe('model');
    expect(noKey.error).toMatch(/OPENAI_API_KEY/);
    expect(await refusal({ model: 'scripted', scenario: 'no-such-demo' })).toEqual({
      kind: 'model',
      error: "unknown scripted scenario 'no-such-demo'",
    });
    const profile = await refusal(
      { topology: 'orchestrated', profiles: { cheap: { base: 'explore', model: 'anthropic:local-claude' } } },
      { PATH: env.PATH, OPENAI_API_KEY: 'sk-test' },
    );
    expect(profile.kind).toBe('profile-model');
    expect(profile.error).toMatch(/^profile "cheap": .*ANTHROPIC_API_KEY/);
  });

  it('a money budget over a model without prices, unless a token budget binds too', async () => {
    const local = { model: 'openai-chat:local-llm', baseUrl: 'http://127.0.0.1:9/v1' };
    expect(await refusal({ ...local, budgetUsd: 1 })).toEqual({
      kind: 'unpriced',
      error:
        "budgetUsd 1 cannot limit model 'openai-chat:local-llm': it has no prices, so its calls would cost " +
        'nothing against the budget. Set budgetTokens too, or use a model with prices (customModels with prices)',
    });
    const both = await buildRunSpec({ ...base, ...local, budgetUsd: 1, budgetTokens: 10_000 }, env);
    expect(both.ok).toBe(true);
  });

  it("a peer's own settings: outside peers, for no peer of the run, an unknown or keyless model, two models", async () => {
    const peers = { topology: 'peers' as const, agents: 2, verify: 'true' };
    expect(await refusal({ peerSettings: { 'peer-1': { maxSteps: 5 } } })).toEqual({
      kind: 'peer-settings-topology',
      error: 'peerSettings go with topology "peers"',
    });
    expect(await refusal({ ...peers, peerSettings: { 'peer-3': { maxSteps: 5 } } })).toEqual({
      kind: 'unknown-peer',
      error: 'peerSettings: peer-3 is not a peer of this run (peer-1 to peer-2)',
    });
    const unknown = await refusal({ ...peers, peerSettings: { 'peer-2': { model: 'no-such-model' } } });
    expect(unknown.kind).toBe('peer-model');
    expect(unknown.error).toMatch(
      /^peerSettings peer-2: unknown model 'no-such-model'\. Known models: .*gpt-5/,
    );
    const keyless = await refusal(
      { ...peers, peerSettings: { 'peer-1': { model: 'claude-sonnet-4-5' } } },
      { PATH: env.PATH, OPENAI_API_KEY: 'sk-test' },
    );
    expect(keyless).toMatchObject({ kind: 'peer-model', error: expect.stringMatching(/ANTHROPIC_API_KEY/) });
    expect(
      await refusal({
        ...peers,
        agentCli: { kind: 'codex', byAgent: { 'peer-2': { kind: 'codex', model: 'gpt-5' } } },
        peerSettings: { 'peer-2': { model: 'gpt-5-mini' } },
      }),
    ).toEqual({
      kind: 'peer-two-models',
      error: "peer-2 has two models: 'gpt-5' from agentCli and 'gpt-5-mini' from peerSettings",
    });
    expect(await refusal({ ...peers, peerSettings: { 'peer-1': { maxSteps: 0 } } })).toMatchObject({
      kind: 'invalid-spec',
      error: expect.stringMatching(/^invalid run options at peerSettings\.peer-1\.maxSteps: /),
    });
    const local = { model: 'openai-chat:local-llm', baseUrl: 'http://127.0.0.1:9/v1' };
    expect(
      await refusal({
        ...peers,
        budgetUsd: 1,
        peerSettings: { 'peer-2': { model: local.model } },
        customModels: [
          {
            id: local.model,
            protocol: 'openai-chat',
            name: 'local-llm',
            baseUrl: local.baseUrl,
            contextWindow: 8_000,
            maxOutput: 1_000,
            prices: null,
          },
        ],
      }),
    ).toMatchObject({
      kind: 'unpriced',
      error: expect.stringContaining("peer-2's model 'openai-chat:local-llm'"),
    });
  });
});

describe('buildRunSpec builds', () => {
  it('a spec with the run defaults, its sandbox setting, catalog, provider and the dirty files', async () => {
    writeFileSync(join(repo.dir, 'a.txt'), 'changed\n');
    try {
      const built = await buildRunSpec(base, env);
      if (!built.ok) throw new Error(built.error);
      expect(built.spec).toMatchObject({
        topology: 'solo',
        repo: repo.dir,
        baseRef: 'HEAD',
        baseCommit: repo.base,
        model: 'gpt-5-mini',
        customModels: [],
        maxSteps: RUN_DEFAULTS.maxSteps,
        profile: RUN_DEFAULTS.profile,
        stream: RUN_DEFAULTS.stream,
        modelTimeoutMs: RUN_DEFAULTS.modelTimeoutMs,
        maxRetries: RUN_DEFAULTS.maxRetries,
        bashTimeoutS: RUN_DEFAULTS.bashTimeoutS,
        sandbox: { enabled: false },
      });
      const deadline = Date.parse(built.spec.deadlineAt ?? '') - Date.now();
      expect(deadline).toBeGreaterThan(23.9 * 3600_000);
      expect(deadline).toBeLessThanOrEqual(24 * 3600_000);
      expect(built.provider.model.id).toBe('gpt-5-mini');
      expect(built.catalog.runModel).toBe('gpt-5-mini');
      expect(built.dirty).toEqual([' M a.txt']);
    } finally {
      writeFileSync(join(repo.dir, 'a.txt'), 'one\n');
    }
  });

  it('a workflow run from its program, with the topology implied', async () => {
    const file = join(repo.dir, '..', `colony-build-spec-program-${process.pid}.js`);
    writeFileSync(file, 'export default async (w) => w.args;\n');
    try {
      const built = await buildRunSpec({ ...base, workflow: { file, args: { k: 'v' } } }, env);
      if (!built.ok) throw new Error(built.error);
      expect(built.spec.topology).toBe('workflow');
      expect(built.spec.workflow).toEqual({
        file,
        js: 'export default async (w) => w.args;\n',
        args: { k: 'v' },
      });
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe('the CLI and the library build the same spec for the same inputs', () => {
  const config: ColonyConfig = { ...DEFAULT_CONFIG, model: 'gpt-5-mini', sandbox: 'off' };
  /** What differs by construction: the new run's id and its deadline's instant. */
  const comparable = ({ runId: _id, deadlineAt, ...rest }: RunSpec) => ({
    ...rest,
    deadlineMinute: Math.round(Date.parse(deadlineAt ?? '') / 60_000),
  });
  const definedOnly = (spec: RunSpec) => JSON.parse(JSON.stringify(comparable(spec))) as unknown;

  async function both(cli: Parameters<typeof prepareRun>[0], library: SpecOptions) {
    const fromCli = await prepareRun(cli, env);
    const fromLibrary = await buildRunSpec(library, env);
    if (!fromLibrary.ok) throw new Error(fromLibrary.error);
    return { cli: definedOnly(fromCli.spec), library: definedOnly(fromLibrary.spec) };
  }

  it('solo, with a verify command and budgets', async () => {
    const specs = await both(
      { repo: repo.dir, goal: 'g', config: { ...config, verify: 'true', budgetUsd: 2, budgetTokens: 9000 } },
      { ...base, goal: 'g', verify: 'true', budgetUsd: 2, budgetTokens: 9000 },
    );
    expect(specs.cli).toEqual(specs.library);
  });

  it('peers, with their default idle time and agents', async () => {
    const specs = await both(
      { repo: repo.dir, goal: 'g', config: { ...config, verify: 'true' }, topology: 'peers', agents: 3 },
      { ...base, goal: 'g', topology: 'peers', verify: 'true', agents: 3 },
    );
    expect(specs.cli).toEqual(specs.library);
    expect(specs.cli).toMatchObject({ agents: 3, idleMs: 5 * 60_000 });
  });

  it("peers, with a peer's own model and step cap from config", async () => {
    const peerSettings = { 'peer-2': { model: 'gpt-5', maxSteps: 7 }, 'peer-3': { maxSteps: 40 } };
    const specs = await both(
      {
        repo: repo.dir,
        goal: 'g',
        config: { ...config, verify: 'true', peers: peerSettings },
        topology: 'peers',
        agents: 3,
      },
      { ...base, goal: 'g', topology: 'peers', verify: 'true', agents: 3, peerSettings },
    );
    expect(specs.cli).toEqual(specs.library);
    expect(specs.cli).toMatchObject({ peerSettings });
  });

  it('orchestrated, with a profile of its own model', async () => {
    const specs = await both(
      {
        repo: repo.dir,
        goal: 'g',
        config: {
          ...config,
          profiles: {
            scout: { base: 'explore', model: 'gpt-5', system: 'Look.' },
            lone: { base: 'coder', coordination: [] },
          },
        },
        topology: 'orchestrated',
      },
      {
        ...base,
        goal: 'g',
        topology: 'orchestrated',
        profiles: {
          scout: { base: 'explore', model: 'gpt-5', prompt: 'Look.' },
          lone: { base: 'coder', coordination: [] },
        },
      },
    );
    expect(specs.cli).toEqual(specs.library);
    // A config profile's coordination reaches the spec (here: none for its agents).
    expect(specs.cli).toMatchObject({ profiles: { lone: { coordination: [] } } });
  });

  it('refuse alike, each in its own words', async () => {
    const cli = prepareRun(
      { repo: repo.dir, goal: 'g', config: { ...config, verify: undefined }, topology: 'peers' },
      env,
    );
    await expect(cli).rejects.toThrow(UsageError);
    await expect(cli).rejects.toThrow(
      'run: --topology peers needs --verify CMD (merges and the result are checked with it)',
    );
    expect(await refusal({ topology: 'peers' })).toMatchObject({ kind: 'peers-without-verify' });
    await expect(prepareRun({ repo: repo.dir, goal: ' ', config }, env)).rejects.toThrow(
      'run: --goal must not be empty',
    );
  });
});
