/**
 * Longest files first, also on a fresh clone. vitest orders by the durations of an earlier run from
 * its cache (node_modules/.vite), which a fresh clone — CI — does not have: there it keeps the glob
 * order, and a three-minute file that happens to sort late runs alone at the end while the other
 * worker idles. test/timings.json holds the file durations of a whole-suite run on the CI machine kind
 * (`npm run test:timings` rewrites it from a JSON report); the cache, when there is one, is newer and
 * wins. Files in neither (new files) go first, as vitest does with files it does not know.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const TIMINGS_FILE = new URL('./timings.json', import.meta.url);

/** Seconds per `project:path`, or nothing when the file is missing or unreadable. */
function committedTimings(): Map<string, number> {
  try {
    const parsed = JSON.parse(readFileSync(TIMINGS_FILE, 'utf8')) as { files?: Record<string, number> };
    return new Map(Object.entries(parsed.files ?? {}));
  } catch {
    return new Map();
  }
}

export class LongestFirstSequencer extends BaseSequencer {
  private readonly timings = committedTimings();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
      const cached = this.ctx.cache.getFileTestResults(key);
      if (cached) return cached.duration / 1000;
      return this.timings.get(key) ?? Number.POSITIVE_INFINITY;
    };
    const keyed = files.map((spec) => ({ spec, seconds: seconds(spec) }));
    keyed.sort((a, b) => (a.seconds === b.seconds ? 0 : a.seconds > b.seconds ? -1 : 1));
    return keyed.map(({ spec }) => spec);
  }
}
