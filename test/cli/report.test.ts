/**
 * `colony report` on a real run (the scripted peers demo through the built CLI): the HTML page opens
 * in a real Chromium with every network request blocked, makes none, and draws its charts; the
 * charts are also written as .svg files.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertChromium, launchChromium } from '../../bench/lib/chromium.js';
import { colony, lastJsonLine } from '../helpers/cli.js';

describe('colony report', () => {
  it('writes a self-contained page that renders offline, plus SVG charts', async () => {
    // Fail before the (slow) demo run when Chromium is missing.
    assertChromium();
    const parent = mkdtempSync(join(tmpdir(), 'colony-report-test-'));
    const demo = await colony(['demo', 'peers', '--dir', parent, '--json'], { timeoutMs: 240_000 });
    expect(demo.code, demo.stderr).toBe(0);
    const runId = String(lastJsonLine(demo.stdout).runId);

    const out = join(parent, 'report');
    const result = await colony(['report', runId, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const page = join(out, 'index.html');
    expect(result.stdout.split('\n')[0]).toBe(page);
    for (const chart of ['timeline', 'tokens', 'cost', 'merges']) {
      const svg = readFileSync(join(out, `${chart}.svg`), 'utf8');
      expect(svg).toContain(`data-chart="${chart}"`);
    }
    const html = readFileSync(page, 'utf8');
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|@import|url\(/);
    expect(html).toContain('coordination share of input · of uncached input');

    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const pageUrl = pathToFileURL(page).href;
      const blocked: string[] = [];
      const failed: string[] = [];
      await context.route('**/*', (route) => {
        if (route.request().url() === pageUrl) return route.continue();
        blocked.push(route.request().url());
        return route.abort();
      });
      const tab = await context.newPage();
      tab.on('requestfailed', (r) => failed.push(r.url()));
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(e.message));
      await tab.goto(pageUrl);
      await tab.waitForSelector('body[data-ready="true"]');
      expect(blocked).toEqual([]);
      expect(failed).toEqual([]);
      expect(errors).toEqual([]);
      // The charts rendered: real boxes with bars, the critical path, and the merge lines.
      for (const chart of ['timeline', 'tokens', 'merges']) {
        const box = await tab.locator(`svg[data-chart="${chart}"]`).boundingBox();
        expect(box?.width ?? 0, chart).toBeGreaterThan(300);
      }
      expect(await tab.locator('svg[data-chart="timeline"] rect[data-bar="model"]').count()).toBeGreaterThan(
        10,
      );
      expect(await tab.locator('svg[data-chart="timeline"] [data-critical="true"]').count()).toBeGreaterThan(
        0,
      );
      expect(
        await tab.locator('svg[data-chart="tokens"] rect[data-series="uncached"]').count(),
      ).toBeGreaterThan(0);
      expect(await tab.locator('svg[data-chart="merges"] polyline[data-series="landed"]').count()).toBe(1);
      // The summary and the tables, from the same log.
      await expect.poll(() => tab.locator('#summary').textContent()).toMatch(/succeeded/);
      expect(await tab.locator('#agents tbody tr').count()).toBe(4);
      expect(await tab.locator('#integration tbody tr').count()).toBeGreaterThanOrEqual(7);
      // The shared-context feed: FAIL rows stand out, and the kind filter hides a kind.
      const fail = tab.locator('#context tr.fail');
      expect(await fail.count()).toBeGreaterThanOrEqual(1);
      const claims = tab.locator('#context tr[data-kind="CLAIM"]');
      await tab.locator('.filters button[data-kind="CLAIM"]').click();
      expect(await claims.first().isVisible()).toBe(false);
      expect(await fail.first().isVisible()).toBe(true);
      await tab.screenshot({ path: join(out, 'screenshot.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 300_000);

  it('refuses an unknown run with a usage error', async () => {
    const result = await colony(['report', 'r-nope-000000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no such run/);
  });
});
