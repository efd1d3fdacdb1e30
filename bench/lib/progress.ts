/** One line on stderr per phase of a benchmark, with the seconds since it started (stdout keeps its one JSON line). */
export function progress(bench: string): (what: string) => void {
  const t0 = performance.now();
  return (what) =>
    process.stderr.write(`bench ${bench}: ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
}
