/**
 * `colony compare` on two real runs (the scripted solo demo, twice, through the built CLI). The first
 * run is piped without --json, which is also the non-TTY path of `colony run`'s live output: plain
 * lines, no terminal control codes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colony, lastJsonLine } from '../helpers/cli.js';

describe('colony compare', () => {
  it('puts two runs side by side, as a table and as JSON', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'colony-compare-test-'));
    const plain = await colony(['demo', 'solo', '--dir', parent], { timeoutMs: 180_000 });
    expect(plain.code, plain.stderr).toBe(0);
    // Not a TTY: one plain line per event, never the redrawn progress block.
    expect(plain.stdout).not.toContain('\x1b[');
    expect(plain.stdout).toMatch(/^\d\d:\d\d:\d\d \[solo\] step 1 /m);
    const first = /run (r-[0-9a-z]+-[0-9a-f]{6}): succeeded/.exec(plain.stdout)?.[1];
    if (!first) throw new Error(`no run id in:\n${plain.stdout.slice(-1500)}`);
    const json = await colony(['demo', 'solo', '--dir', parent, '--json'], { timeoutMs: 180_000 });
    expect(json.code, json.stderr).toBe(0);
    const second = String(lastJsonLine(json.stdout).runId);

    const table = await colony(['compare', first, second]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^\\s+${first}\\s+${second}$`));
    for (const row of [
      'wall-clock',
      'cost',
      'tokens uncached input',
      'tokens cached',
      'tokens output',
      'CriticalSteps',
      'parallelism',
      'coordination share of input',
      'coordination share of uncached input',
      'verify',
    ])
      expect(
        lines.some((l) => l.startsWith(row)),
        row,
      ).toBe(true);
    expect(lines.find((l) => l.startsWith('verify'))).toMatch(/passed\s+passed$/);

    const asJson = await colony(['compare', first, second, '--json']);
    expect(asJson.code, asJson.stderr).toBe(0);
    const facts = JSON.parse(asJson.stdout) as Array<Record<string, unknown>>;
    expect(facts.map((f) => f.runId)).toEqual([first, second]);
    const summary = lastJsonLine(json.stdout) as {
      tokens: Record<string, number>;
      wallClockMs: number;
    };
    expect(facts[1]).toMatchObject({
      status: 'succeeded',
      topology: 'solo',
      wallClockMs: summary.wallClockMs,
      // The same token fields as colony show --json.
      tokens: summary.tokens,
      verify: { passed: true },
      criticalPath: { method: 'longest-agent' },
    });
    expect(facts[1]?.metrics).toHaveProperty('criticalSteps');
    expect(facts[1]?.metrics).toHaveProperty('coordinationShareOfInput');
    expect(facts[1]?.metrics).toHaveProperty('coordinationShareOfUncachedInput');
  }, 300_000);

  it('needs two runs', async () => {
    const result = await colony(['compare', 'r-x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/two or more runs/);
  });
});
