import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/config.js';

const dir = () => mkdtempSync(join(tmpdir(), 'colony-config-'));

describe('loadConfig', () => {
  it('applies flags over environment over config file over defaults', () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, 'colony.json'),
      JSON.stringify({ model: 'from-file', maxSteps: 7, budgetUsd: 3 }),
    );
    const result = loadConfig({ flags: { model: 'from-flag' }, env: { COLONY_MAX_STEPS: '9' }, cwd });
    expect(result.ok && result.config).toMatchObject({
      model: 'from-flag',
      maxSteps: 9,
      budgetUsd: 3,
      profile: 'coder',
    });
    expect(result.ok && result.source).toBe(join(cwd, 'colony.json'));
  });

  it('takes commands only from a file named with --config (trust rules: config-trust.test.ts)', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'colony.json'), JSON.stringify({ maxSteps: 7, verify: 'make test' }));
    const implicit = loadConfig({ flags: {}, env: {}, cwd });
    expect(!implicit.ok && implicit.error).toMatch(/not named with --config.*sets verify/);
    const named = loadConfig({ flags: {}, env: {}, cwd, configFile: 'colony.json' });
    expect(named.ok && named.config).toMatchObject({ maxSteps: 7, verify: 'make test' });
  });

  it("merges a peer's settings from the file and the flags peer by peer and field by field", () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, 'colony.json'),
      JSON.stringify({ peers: { 'peer-1': { model: 'gpt-5', maxSteps: 7 }, 'peer-2': { maxSteps: 9 } } }),
    );
    const result = loadConfig({
      flags: { peers: { 'peer-1': { maxSteps: 20 }, 'peer-3': { model: 'gpt-5-mini' } } },
      env: {},
      cwd,
    });
    expect(result.ok && result.config.peers).toEqual({
      'peer-1': { model: 'gpt-5', maxSteps: 20 },
      'peer-2': { maxSteps: 9 },
      'peer-3': { model: 'gpt-5-mini' },
    });
    writeFileSync(join(cwd, 'colony.json'), JSON.stringify({ peers: { 'peer-1': { modle: 'gpt-5' } } }));
    const typo = loadConfig({ flags: {}, env: {}, cwd });
    expect(!typo.ok && typo.error).toMatch(/peers\.peer-1.*modle/);
  });

  it('uses defaults without a config file', () => {
    const result = loadConfig({ flags: {}, env: {}, cwd: dir() });
    expect(result.ok && result.config.maxSteps).toBe(100);
  });

  it('reports a missing explicit config file, bad JSON and invalid values clearly', () => {
    const cwd = dir();
    const missing = loadConfig({ flags: {}, env: {}, cwd, configFile: 'nope.json' });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.error).toMatch(/config file not found: .*nope\.json/);

    writeFileSync(join(cwd, 'bad.json'), '{ "model": ');
    const bad = loadConfig({ flags: {}, env: {}, cwd, configFile: 'bad.json' });
    expect(!bad.ok && bad.error).toMatch(/not valid JSON/);

    writeFileSync(join(cwd, 'colony.json'), JSON.stringify({ maxSteps: -1, colour: 'blue' }));
    const invalid = loadConfig({ flags: {}, env: {}, cwd });
    expect(!invalid.ok && invalid.error).toMatch(/maxSteps/);
    expect(!invalid.ok && invalid.error).toMatch(/colour/);
  });

  it('refuses unknown keys inside models[] and their prices, naming them (the README: unknown keys are errors)', () => {
    const cwd = dir();
    const model = { id: 'local', protocol: 'openai-chat', name: 'llama3', contextWindow: 8192 };
    writeFileSync(join(cwd, 'typo.json'), JSON.stringify({ models: [{ ...model, contextWindw: 4096 }] }));
    const typo = loadConfig({ flags: {}, env: {}, cwd, configFile: 'typo.json' });
    expect(typo.ok).toBe(false);
    expect(!typo.ok && typo.error).toMatch(/contextWindw/);
    const prices = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 4, cacheRead: 0.1 };
    writeFileSync(join(cwd, 'prices.json'), JSON.stringify({ models: [{ ...model, prices }] }));
    const badPrices = loadConfig({ flags: {}, env: {}, cwd, configFile: 'prices.json' });
    expect(!badPrices.ok && badPrices.error).toMatch(/cacheRead/);
    writeFileSync(join(cwd, 'good.json'), JSON.stringify({ models: [model] }));
    const good = loadConfig({ flags: {}, env: {}, cwd, configFile: 'good.json' });
    expect(good.ok && good.config.models[0]).toMatchObject({
      id: 'local',
      contextWindow: 8192,
      prices: null,
    });
  });

  it('rejects a non-numeric environment value', () => {
    const result = loadConfig({ flags: {}, env: { COLONY_BUDGET_USD: 'lots' }, cwd: dir() });
    expect(!result.ok && result.error).toMatch(/budgetUsd/);
  });

  it('names the environment variable a bad value came from (issue 33)', () => {
    const error = (env: Record<string, string>, flags = {}) => {
      const result = loadConfig({ flags, env, cwd: dir() });
      return result.ok ? '' : result.error;
    };
    expect(error({ COLONY_MAX_STEPS: 'abc' })).toBe(
      'invalid configuration: COLONY_MAX_STEPS=abc (maxSteps): not a number',
    );
    expect(error({ COLONY_MAX_STEPS: '-3' })).toMatch(
      /^invalid configuration: COLONY_MAX_STEPS=-3 \(maxSteps\): /,
    );
    expect(error({ COLONY_SANDBOX: 'maybe' })).toMatch(
      /^invalid configuration: COLONY_SANDBOX=maybe \(sandbox\): /,
    );
    // A flag given for the same setting wins, so the variable is not read.
    expect(error({ COLONY_MAX_STEPS: 'abc' }, { maxSteps: 5 })).toBe('');
  });
});
