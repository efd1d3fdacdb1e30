/** `--key value` options for benchmarks; a bare `--flag` (no value, or followed by another flag) is true. */
export interface BenchArgs {
  number(name: string, fallback: number): number;
  string(name: string): string | undefined;
  flag(name: string): boolean;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('--') ? '' : next;
  };
  return {
    number(name, fallback) {
      const raw = value(name);
      if (raw === undefined) return fallback;
      const parsed = Number(raw);
      if (raw === '' || !Number.isFinite(parsed)) throw new Error(`--${name} needs a number, got '${raw}'`);
      return parsed;
    },
    string: (name) => value(name) || undefined,
    flag: (name) => argv.includes(`--${name}`),
  };
}
