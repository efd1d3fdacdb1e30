import { describe, expect, it } from 'vitest';
import { PROFILE_NAMES, resolveProfile, toolsForProfile } from '../../src/agent/profiles.js';
import { tempDir } from './tools/helpers.js';

function names(profile: string): string[] {
  const result = toolsForProfile(profile, '/tmp');
  if (!result.ok) throw new Error(result.error);
  return result.tools.map((tool) => tool.spec.name).sort();
}

describe('profiles', () => {
  it('lists the known profiles', () => {
    expect([...PROFILE_NAMES]).toEqual(['explore', 'reviewer', 'plan', 'coder', 'integrator']);
  });

  it('explore, reviewer and plan are read-only: read, grep, ls and no bash', () => {
    for (const profile of ['explore', 'reviewer', 'plan']) {
      expect(names(profile)).toEqual(['grep', 'ls', 'read']);
      const result = toolsForProfile(profile, '/tmp');
      expect(result.ok && result.tools.every((tool) => !tool.mutates)).toBe(true);
    }
  });

  it('coder and integrator have all six tools', () => {
    expect(names('coder')).toEqual(['bash', 'edit', 'grep', 'ls', 'read', 'write']);
    expect(names('integrator')).toEqual(['bash', 'edit', 'grep', 'ls', 'read', 'write']);
  });

  it('resolves profiles defined in config (own model and step cap) before the built-in ones', () => {
    const defined = { 'cheap-reviewer': { base: 'reviewer' as const, model: 'other', maxSteps: 15 } };
    expect(resolveProfile('cheap-reviewer', defined)).toEqual({
      ok: true,
      profile: { name: 'cheap-reviewer', base: 'reviewer', model: 'other', maxSteps: 15 },
    });
    expect(resolveProfile('coder', defined)).toEqual({ ok: true, profile: { name: 'coder', base: 'coder' } });
    const unknown = resolveProfile('admin', defined);
    expect(unknown.ok ? null : unknown.error).toBe(
      'unknown profile "admin" (known: explore, reviewer, plan, coder, integrator, cheap-reviewer)',
    );
  });

  it('refuses an unknown profile, naming the known ones', () => {
    const result = toolsForProfile('admin', '/tmp');
    expect(result).toEqual({
      ok: false,
      error: 'unknown profile "admin" (known: explore, reviewer, plan, coder, integrator)',
    });
  });

  it('passes bash options through and binds tools to the root', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const result = toolsForProfile('coder', dir, { bash: { env: { FROM_PROFILE: 'yes' } } });
      if (!result.ok) throw new Error(result.error);
      const bash = result.tools.find((tool) => tool.spec.name === 'bash');
      const output = await bash?.run({ command: 'echo $FROM_PROFILE; pwd' }, {});
      expect(output?.content).toBe(`yes\n${dir}\n\n[exit code 0]`);
    } finally {
      cleanup();
    }
  });
});
