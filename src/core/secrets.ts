/**
 * Known secret values (API keys, tokens, passwords from the environment and config) are replaced by
 * a placeholder before anything reaches the event log.
 */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
/** Values shorter than this are too likely to occur by chance in normal text. */
const MIN_SECRET_LENGTH = 8;

export interface Scrubber {
  scrub(text: string): string;
  /** Scrubs every string inside a JSON-like value. */
  scrubValue<T>(value: T): T;
  readonly count: number;
}

export function secretValuesFromEnv(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && SECRET_NAME.test(name)) values.push(value);
    if (value && name === 'COLONY_DATABASE_URL') values.push(value);
  }
  return values;
}

export function createScrubber(secrets: Iterable<string>): Scrubber {
  const unique = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))];
  // Longest first so a secret containing another is replaced whole.
  unique.sort((a, b) => b.length - a.length);
  const pattern = unique.length > 0 ? new RegExp(unique.map(escapeRegExp).join('|'), 'g') : null;
  const scrub = (text: string): string => (pattern ? text.replace(pattern, '[REDACTED]') : text);
  const scrubValue = <T>(value: T): T => {
    if (!pattern) return value;
    if (typeof value === 'string') return scrub(value) as T;
    if (Array.isArray(value)) return value.map(scrubValue) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = scrubValue(v);
      return out as T;
    }
    return value;
  };
  return { scrub, scrubValue, count: unique.length };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
