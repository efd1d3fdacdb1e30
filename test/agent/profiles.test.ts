import { describe, expect, it } from 'vitest';
import { PROFILE_NAMES, toolsForProfile } from '../../src/agent/profiles.js';
import { tempDir } from './tools/helpers.js';

function names(profile: string): string[] {
  const result = toolsForProfile(profile, '/tmp');
  if (!result.ok) throw new Error(result.error);
  return result.tools.map((tool) => tool.spec.name).sort();
}

describe('profiles', () => {
  it('lists the known profiles', () => {
    expect([...PROFILE_NAMES]).toEqual(['explore', 'reviewer', 'coder']);
  });

  it('explore and reviewer are read-only: read, grep, ls and no bash', () => {
    for (const profile of ['explore', 'reviewer']) {
      expect(names(profile)).toEqual(['grep', 'ls', 'read']);
      const result = toolsForProfile(profile, '/tmp');
      expect(result.ok && result.tools.every((tool) => !tool.mutates)).toBe(true);
    }
  });

  it('coder has all six tools', () => {
    expect(names('coder')).toEqual(['bash', 'edit', 'grep', 'ls', 'read', 'write']);
  });

  it('refuses an unknown profile, naming the known ones', () => {
    const result = toolsForProfile('admin', '/tmp');
    expect(result).toEqual({ ok: false, error: 'unknown profile "admin" (known: explore, reviewer, coder)' });
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
