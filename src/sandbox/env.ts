/**
 * The environment inside the sandbox: built from an allow-list, never copied from Colony's own
 * (which holds API keys, COLONY_*, DATABASE_URL, PG*). PATH, LANG and TERM keep their values, HOME is a
 * folder inside the sandbox, and the variables the user passes by name (`--pass-env NAME`) are added.
 */

/** The home of every sandboxed command: on the sandbox's private /tmp, empty at each start. */
export const SANDBOX_HOME = '/tmp/home';

/** Variables whose values are taken from the parent's environment as they are. */
const ALLOWED = ['PATH', 'LANG', 'TERM'] as const;

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/** A variable name `--pass-env` accepts: a shell identifier. */
export function isEnvName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/** The values of `names` in `env` (names without a value are left out). */
export function passedValues(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/**
 * `base` gives PATH, LANG and TERM; `passed` (the user's names) and `extra` (set by Colony for this
 * command) are added over them. HOME is always the sandbox's own.
 */
export function sandboxEnv(
  base: NodeJS.ProcessEnv,
  passed: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = { PATH: FALLBACK_PATH };
  for (const name of ALLOWED) {
    const value = base[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  return { ...env, ...passed, ...extra, HOME: SANDBOX_HOME };
}
