/** Writes a run's report: index.html (self-contained) and each chart as an .svg file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StoredEvent } from '../core/events.js';
import { renderRunCharts } from '../view/charts.js';
import { reportPage } from './report-page.js';
import { type RunFacts, runFacts } from './run-metrics.js';

export interface WrittenReport {
  dir: string;
  html: string;
  svgs: string[];
  facts: RunFacts;
}

export function writeReport(
  runId: string,
  events: readonly StoredEvent[],
  dir: string,
): { ok: true; report: WrittenReport } | { ok: false; error: string } {
  const { facts, view } = runFacts(runId, events);
  const charts = renderRunCharts(view);
  const out = resolve(dir);
  try {
    mkdirSync(out, { recursive: true });
    const html = join(out, 'index.html');
    writeFileSync(html, reportPage(view, facts, charts));
    const svgs: string[] = [];
    for (const [name, svg] of Object.entries(charts)) {
      const file = join(out, `${name}.svg`);
      writeFileSync(file, `<?xml version="1.0" encoding="UTF-8"?>\n${svg}\n`);
      svgs.push(file);
    }
    return { ok: true, report: { dir: out, html, svgs, facts } };
  } catch (err) {
    return { ok: false, error: `cannot write the report to ${out}: ${(err as Error).message}` };
  }
}
