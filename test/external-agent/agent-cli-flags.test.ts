/**
 * `--agent-cli` / `--agent-cli-peers` → the run spec's `agentCli`, and which CLI each peer gets
 * (`cliOf`): the old forms unchanged, per-peer CLIs and models for a mixed team.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentCliFlags } from '../../src/cli/agent-cli-flags.js';
import { UsageError } from '../../src/cli/args.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { prepareRun } from '../../src/cli/new-run.js';
import { parseAgentCliFlag } from '../../src/external-agent/index.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { cliOf } from '../../src/topology/peers/peer-host.js';
import { createUserRepo } from '../helpers/user-repo.js';

const parse = (values: { 'agent-cli'?: string; 'agent-cli-peers'?: string }, agents = 3) =>
  agentCliFlags(values, 'peers', agents, { PATH: '/usr/bin:/bin' });
const peersOf = (agentCli: RunSpec['agentCli']) =>
  ['peer-1', 'peer-2', 'peer-3'].map((agent) => cliOf({ agentCli } as RunSpec, agent));

describe('agent-cli flags', () => {
  it('keeps the old forms: every peer, or the named ones, on one CLI', () => {
    expect(parse({})).toBeUndefined();
    const all = parse({ 'agent-cli': 'cmd:node a.mjs' });
    expect(all).toEqual({ kind: 'cmd', command: 'node a.mjs' });
    expect(peersOf(all)).toEqual([1, 2, 3].map(() => ({ kind: 'cmd', command: 'node a.mjs' })));
    const some = parse({ 'agent-cli': 'cmd:x', 'agent-cli-peers': 'peer-2, peer-3' });
    expect(some).toEqual({ kind: 'cmd', command: 'x', agents: ['peer-2', 'peer-3'] });
    expect(peersOf(some)).toEqual([null, { kind: 'cmd', command: 'x' }, { kind: 'cmd', command: 'x' }]);
  });

  it('gives a peer a CLI and model of its own (--agent-cli then optional)', () => {
    const mixed = parse({ 'agent-cli-peers': 'peer-2=cmd:node b.mjs --at=x@y,peer-3=cmd:true' });
    expect(peersOf(mixed)).toEqual([
      null,
      { kind: 'cmd', command: 'node b.mjs --at=x@y' },
      { kind: 'cmd', command: 'true' },
    ]);
    const both = parse({ 'agent-cli': 'cmd:a', 'agent-cli-peers': 'peer-1,peer-3=cmd:b' });
    expect(peersOf(both)).toEqual([{ kind: 'cmd', command: 'a' }, null, { kind: 'cmd', command: 'b' }]);
  });

  it('takes @MODEL for claude-code and codex', () => {
    // The pinned CLIs are devDependencies: found in Colony's node_modules.
    const spec = parse({
      'agent-cli-peers': 'peer-2=claude-code@anthropic:c,peer-3=codex@openai-responses:x',
    });
    const [first, second, third] = peersOf(spec);
    expect(first).toBeNull();
    expect(second).toMatchObject({ kind: 'claude-code', model: 'anthropic:c' });
    expect(third).toMatchObject({ kind: 'codex', model: 'openai-responses:x' });
    expect(third?.command).toMatch(/node_modules\/@openai\/codex\/bin\/codex\.js$/);
  });

  it('refuses bad entries with a usage error', () => {
    for (const [value, message] of [
      ['peer-2', "peer-2 takes --agent-cli's CLI"],
      ['peer-9=cmd:x', 'not "peer-9"'],
      ['peer-1=cmd:x,peer-1=cmd:y', '"peer-1" twice'],
      [' , ', 'none given'],
      ['peer-1=codex@', 'needs a model id after @'],
    ] as const) {
      expect(() => parse({ 'agent-cli-peers': value }), value).toThrow(UsageError);
      expect(() => parse({ 'agent-cli-peers': value }), value).toThrow(message);
    }
  });

  it('drives orchestrated subagents with --agent-cli; refuses --agent-cli-peers and other topologies', () => {
    const env = { PATH: '/usr/bin:/bin' };
    expect(agentCliFlags({ 'agent-cli': 'cmd:node a.mjs' }, 'orchestrated', undefined, env)).toEqual({
      kind: 'cmd',
      command: 'node a.mjs',
    });
    expect(() =>
      agentCliFlags({ 'agent-cli': 'cmd:a', 'agent-cli-peers': 'peer-1' }, 'orchestrated', undefined, env),
    ).toThrow('--agent-cli-peers needs --topology peers');
    expect(() => agentCliFlags({ 'agent-cli': 'cmd:a' }, 'solo', undefined, env)).toThrow(
      '--agent-cli needs --topology peers or orchestrated',
    );
  });

  it("stores a config profile's cli in the run spec, or refuses it with a usage error", async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-profile-cli-');
    const prepare = (cli: string) =>
      prepareRun(
        {
          repo: repo.dir,
          goal: 'g',
          config: {
            ...DEFAULT_CONFIG,
            model: 'openai-chat:fake-model',
            baseUrl: 'http://127.0.0.1:9/v1',
            sandbox: 'off',
            profiles: { ext: { base: 'coder', cli } },
          },
          topology: 'orchestrated',
        },
        { ...process.env, OPENAI_API_KEY: 'k' },
      );
    const prepared = await prepare('cmd:node agent.mjs');
    expect(prepared.spec.profiles?.ext).toEqual({
      base: 'coder',
      cli: { kind: 'cmd', command: 'node agent.mjs' },
    });
    await expect(prepare('aider')).rejects.toThrow(UsageError);
    await expect(prepare('aider')).rejects.toThrow('profile "ext": cli must be claude-code, codex');
  });

  it('names the pinned package to install when a CLI is neither bundled nor on PATH', () => {
    const root = mkdtempSync(join(tmpdir(), 'colony-no-clis-'));
    const env = { PATH: root };
    const codex = parseAgentCliFlag('codex', env, root);
    expect(!codex.ok && codex.error).toContain('npm install -g @openai/codex@0.171.0');
    const claude = parseAgentCliFlag('claude-code', env, root);
    expect(!claude.ok && claude.error).toContain('npm install -g @anthropic-ai/claude-code@2.1.100');
    // On PATH (not bundled): the bare command.
    const onPath = parseAgentCliFlag(
      'codex',
      { PATH: join(import.meta.dirname, '..', '..', 'node_modules', '.bin') },
      root,
    );
    expect(onPath).toEqual({ ok: true, value: { kind: 'codex' } });
  });
});
