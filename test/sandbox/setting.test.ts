/**
 * The run's sandbox setting: resolved from the mode (on fails without bubblewrap, auto falls back
 * loudly, off is off), kept in the stored run spec so a resume keeps it, and shown by summaries.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/cli/summary-text.js';
import { eventOf, type StoredEvent } from '../../src/core/events.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { parseStoredRunSpec, storedRunSpec } from '../../src/run/run-spec-schema.js';
import { detectSandbox } from '../../src/sandbox/detect.js';
import { resolveSandboxSetting } from '../../src/sandbox/setting.js';
import { sandboxView } from '../../src/view/sandbox.js';
import { summarise } from '../../src/view/summary.js';

const noBwrap = { PATH: mkdtempSync(path.join(tmpdir(), 'colony-no-bwrap-')) };
const request = { network: false, passEnv: ['NPM_TOKEN'] };

describe('the sandbox setting', () => {
  it('is one clear error without bwrap: the package and the opt-out', async () => {
    const found = await detectSandbox(noBwrap);
    expect(found.ok).toBe(false);
    if (found.ok) return;
    expect(found.error).toContain('`bwrap` is not on PATH');
    expect(found.error).toContain('Debian package bubblewrap');
    expect(found.error).toContain('--sandbox off');
    expect(await resolveSandboxSetting({ mode: 'on', ...request }, noBwrap)).toEqual({
      ok: false,
      error: found.error,
    });
  });

  it('names the reason when bwrap is there but cannot build a sandbox', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'colony-broken-bwrap-'));
    // A stand-in for a bwrap on a kernel without user namespaces.
    writeFileSync(
      path.join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const found = await detectSandbox({ PATH: bin });
    expect(found.ok).toBe(false);
    if (found.ok) return;
    expect(found.error).toContain(`${bin}/bwrap cannot create a sandbox here (bwrap: No permissions`);
    expect(found.error).toContain('Debian package bubblewrap');
    expect(found.error).toContain('--sandbox off');
  });

  it('auto falls back to off with the reason recorded; off is off; on is on where bwrap works', async () => {
    const auto = await resolveSandboxSetting({ mode: 'auto', ...request }, noBwrap);
    expect(auto.ok && auto.value).toMatchObject({ enabled: false, passEnv: ['NPM_TOKEN'] });
    expect(auto.ok && auto.value.offReason).toMatch(/^--sandbox auto: .*bubblewrap/);
    expect(await resolveSandboxSetting({ mode: 'off', ...request }, noBwrap)).toEqual({
      ok: true,
      value: { enabled: false, network: false, passEnv: ['NPM_TOKEN'], offReason: '--sandbox off' },
    });
    expect(await resolveSandboxSetting({ mode: 'on', ...request }, process.env)).toEqual({
      ok: true,
      value: { enabled: true, network: false, passEnv: ['NPM_TOKEN'] },
    });
  });

  it('is kept by the stored run spec, and a spec from before it still reads (not contained)', () => {
    const spec: RunSpec = {
      runId: 'r-1',
      topology: 'solo',
      repo: '/r',
      goal: 'g',
      baseRef: 'HEAD',
      baseCommit: 'abc',
      model: 'scripted',
      customModels: [],
      maxSteps: 3,
      profile: 'coder',
      stream: false,
      modelTimeoutMs: 1000,
      maxRetries: 0,
      bashTimeoutS: 10,
      sandbox: { enabled: true, network: true, passEnv: ['A'] },
    };
    const back = parseStoredRunSpec(storedRunSpec(spec));
    expect(back.ok && back.spec.sandbox).toEqual({ enabled: true, network: true, passEnv: ['A'] });
    const { sandbox: _, ...before } = spec;
    const old = parseStoredRunSpec(storedRunSpec(before));
    expect(old.ok && old.spec.sandbox).toBeUndefined();
    expect(sandboxView(storedRunSpec(before))).toMatchObject({ enabled: false, network: true });
    const wrong = parseStoredRunSpec({ ...storedRunSpec(spec), sandbox: { enabled: 'yes' } });
    expect(wrong.ok).toBe(false);
  });

  it('shows in the summary: a warning when off, the sandbox when on', () => {
    const started = (config: Record<string, unknown>): StoredEvent => ({
      ...eventOf('r-1', null, 'run.started', {
        topology: 'solo',
        goal: 'g',
        repo: '/r',
        base: 'abc',
        model: 'm',
        config,
      }),
      seq: 1,
      ts: new Date(0).toISOString(),
      hash: '',
      prevHash: '',
    });
    const off = formatSummary(
      summarise('r-1', [
        started({
          runId: 'r-1',
          sandbox: { enabled: false, network: false, passEnv: [], offReason: '--sandbox off' },
        }),
      ]),
    );
    expect(off).toContain("warning: no sandbox (--sandbox off): agents' commands ran uncontained");
    const before = formatSummary(summarise('r-1', [started({ runId: 'r-1' })]));
    expect(before).toContain('warning: no sandbox (the run has no sandbox setting)');
    const on = formatSummary(
      summarise('r-1', [
        started({ runId: 'r-1', sandbox: { enabled: true, network: false, passEnv: ['A', 'B'] } }),
      ]),
    );
    expect(on).toContain('sandbox: bubblewrap, no network, passed A, B');
    expect(on).not.toContain('warning');
  });
});
