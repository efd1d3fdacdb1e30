/** `--key value` options for benchmarks; a bare `--flag` (no value, or followed by another flag) is true. */
export interface BenchArgs {
  number(name: string, fallback: number): number;
  string(name: string): string | undefined;
  flag(name: string): boolean;
  /** A number, or `n` / `all` for `all` (e.g. `--concurrency n`: as many as there are agents). */
  numberOrAll(name: string, fallback: number, all: number): number;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const next = argv[i + 1];
    return next === undefined || next.startsWith('--') ? '' : next;
  };
  const number = (name: string, fallback: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (raw === '' || !Number.isFinite(parsed)) throw new Error(`--${name} needs a number, got '${raw}'`);
    return parsed;
  };
  return {
    number,
    string: (name) => value(name) || undefined,
    flag: (name) => argv.includes(`--${name}`),
    numberOrAll(name, fallback, all) {
      const raw = value(name);
      return raw === 'n' || raw === 'all' ? all : number(name, fallback);
    },
  };
}
