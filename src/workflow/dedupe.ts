/** Keeps the first item of every key, in order (merging results of parallel agents). */
export function dedupeBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  const kept: T[] = [];
  for (const item of items) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    kept.push(item);
  }
  return kept;
}
