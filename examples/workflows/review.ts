/**
 * Map-reduce repository review (REFERENCE §2): four read-only explorers analyse four areas of the
 * repository in parallel and return JSON risks; the risks are merged, de-duplicated (same file and
 * line) and ranked by strength of evidence (how many explorers found it independently, severity,
 * how specific the evidence is).
 *
 *   colony workflow examples/workflows/review.ts --repo PATH [--arg areas=src/auth,src/api,src/db,src/util]
 *
 * The file imports only types: the runtime passes `w` in (w.z is zod).
 */
import type { Workflow } from '../../src/workflow/types.js';

const DEFAULT_AREAS = 'src/auth,src/api,src/db,src/util';
const SEVERITY = { critical: 4, high: 3, medium: 2, low: 1 } as const;

interface Risk {
  title: string;
  file: string;
  line: number;
  severity: keyof typeof SEVERITY;
  evidence: string;
}

export default async function review(w: Workflow) {
  const { z } = w;
  const RiskSchema = z.object({
    title: z.string().min(1),
    file: z.string().min(1),
    line: z.number().int().min(1),
    severity: z.enum(['low', 'medium', 'high', 'critical']),
    evidence: z.string().min(1).describe('the code at that line, quoted, and why it is a risk'),
  });
  const Report = z.object({ risks: z.array(RiskSchema) });
  const areas = (w.args.areas ?? DEFAULT_AREAS)
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');

  const reports = await w.stage('explore', () =>
    w.map(areas, (area) =>
      w.agent({ profile: 'explore', name: 'explorer' }).run(explorerTask(area), {
        output: Report,
        timeout: 10 * 60_000,
        retries: 1,
      }),
    ),
  );

  return w.stage('merge', async () => {
    const found: Array<Risk & { area: string }> = [];
    reports.forEach((report, i) => {
      if (report.ok) for (const risk of report.value.risks) found.push({ ...risk, area: areas[i] ?? '' });
    });
    const byLocation = new Map<string, Array<Risk & { area: string }>>();
    for (const risk of found) {
      const key = `${normalisePath(risk.file)}:${risk.line}`;
      byLocation.set(key, [...(byLocation.get(key) ?? []), risk]);
    }
    const merged = w
      .dedupe(found, (r) => `${normalisePath(r.file)}:${r.line}`)
      .map((first) => {
        const same = byLocation.get(`${normalisePath(first.file)}:${first.line}`) ?? [first];
        // Keep the best-evidenced report of the location, and the highest severity anyone gave it.
        const best = [...same].sort((a, b) => b.evidence.length - a.evidence.length)[0] ?? first;
        const severity = same.reduce((s, r) => (SEVERITY[r.severity] > SEVERITY[s] ? r.severity : s), best.severity);
        const reportedBy = [...new Set(same.map((r) => r.area))];
        return { ...best, file: normalisePath(best.file), severity, reportedBy, score: evidenceScore(best, severity, reportedBy.length) };
      })
      .sort((a, b) => b.score - a.score || a.file.localeCompare(b.file) || a.line - b.line);
    return {
      areas,
      failedAreas: reports.flatMap((r, i) => (r.ok ? [] : [{ area: areas[i], error: r.error.message }])),
      reported: found.length,
      risks: merged,
    };
  });
}

function explorerTask(area: string): string {
  return [
    `Review the code under ${area} for security and correctness risks.`,
    'Read the files; report only risks you can point at: the file (path from the repository root), the',
    'line number, a severity (low, medium, high, critical) and the evidence (quote the code and say why).',
    `Stay in ${area}, except to follow a call into another file when the risk crosses it.`,
    'Report an empty list if you find nothing.',
  ].join('\n');
}

/** Strength of evidence: independent confirmations first, then severity, then how specific the evidence is. */
function evidenceScore(risk: Risk, severity: Risk['severity'], confirmations: number): number {
  const quotesCode = /[`'"(=;]/.test(risk.evidence) ? 1 : 0;
  return confirmations * 100 + SEVERITY[severity] * 10 + quotesCode * 5 + Math.min(4, Math.floor(risk.evidence.length / 80));
}

function normalisePath(file: string): string {
  return file.replace(/^\.\//, '').replace(/^\/+/, '');
}
