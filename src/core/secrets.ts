/**
 * Known secret values (API keys, tokens, passwords from the environment and config) are replaced by
 * a placeholder before anything reaches the event log — also when base64-encoded (an agent that can
 * read a key can encode it), the password of any `scheme://user:password@host` URL, and any agent
 * token (auth/agent-token.ts: recognised by its `colony_at_` prefix, since tokens are issued during a
 * run and are not in the list of known values).
 */
import { AGENT_TOKEN_PATTERN, AGENT_TOKEN_PREFIX } from '../auth/agent-token.js';

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PASS$|CREDENTIAL|AUTH|DATABASE_URL|_DSN$|_URI$)/i;
/** `scheme://user:password@` — the password part. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)@/gi;
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
    // A URL's password on its own too: it can appear outside the URL (a psql prompt, a config dump).
    if (value)
      for (const m of value.matchAll(URL_PASSWORD)) if (m[2]) values.push(decodeURIComponentSafe(m[2]));
  }
  return values;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The base64 forms of a secret as they appear inside a longer encoded text: the secret can start at
 * any of three byte offsets, so three encodings, each trimmed of the characters that mix in the
 * neighbouring bytes.
 */
export function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // Skip the characters touched by the padding bytes in front, and the last (partial) character.
    const start = offset === 0 ? 0 : offset === 1 ? 2 : 3;
    const usableBits = (bytes.length + offset) * 8;
    const end = Math.floor(usableBits / 6);
    const form = encoded.slice(start, end);
    if (form.length >= MIN_SECRET_LENGTH) forms.push(form);
  }
  return forms;
}

export function createScrubber(secrets: Iterable<string>): Scrubber {
  const plain = [...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH);
  const unique = [...new Set([...plain, ...plain.flatMap(base64Forms)])];
  // Longest first so a secret containing another is replaced whole.
  unique.sort((a, b) => b.length - a.length);
  const pattern = unique.length > 0 ? new RegExp(unique.map(escapeRegExp).join('|'), 'g') : null;
  const scrub = (text: string): string => {
    const known = pattern ? text.replace(pattern, '[REDACTED]') : text;
    const tokens = known
      .replace(AGENT_TOKEN_PATTERN, '[REDACTED]')
      .replace(ENCODED_AGENT_TOKEN, '[REDACTED]');
    return tokens.includes('://') ? tokens.replace(URL_PASSWORD, '$1[REDACTED]@') : tokens;
  };
  const scrubValue = <T>(value: T): T => {
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

/** An agent token inside base64 text: one of the prefix's encodings and the base64 characters after it. */
const ENCODED_AGENT_TOKEN = new RegExp(
  `(?:${base64Forms(AGENT_TOKEN_PREFIX).map(escapeRegExp).join('|')})[A-Za-z0-9+/_-]*=*`,
  'g',
);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
