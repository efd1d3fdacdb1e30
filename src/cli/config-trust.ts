/**
 * What a config file is trusted with (issue 11, credentials and trust).
 *
 * An implicit file (`colony.json` picked up from the current folder, often a checkout of someone
 * else's repository) may not decide what runs on this machine, how it is contained, or where API
 * keys are sent: those keys need `--config FILE` (the user names the file, so trusts it) or flags.
 * Any file, trusted or not, may not send a vendor's key (OPENAI_API_KEY, …) to a host that is not
 * that vendor's: only `--base-url` or the environment (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) choose
 * such an endpoint.
 */
import { baseUrlFor } from '../model/index.js';
import { foreignKeyHost, KNOWN_MODELS, resolveModel } from '../model/models.js';
import type { ModelRecord } from '../model/types.js';

/** Top-level keys an implicit file may not set (when they take effect), with the flag to use instead. */
const GUARDED: Record<string, { flag: string | null; harmless?: (value: unknown) => boolean }> = {
  baseUrl: { flag: '--base-url URL' },
  apiKeyEnv: { flag: null },
  setup: { flag: '--setup CMD' },
  verify: { flag: '--verify CMD' },
  mergeVerify: { flag: '--merge-verify CMD' },
  accept: { flag: '--accept CMD' },
  sandbox: { flag: '--sandbox MODE', harmless: (value) => value === 'on' },
  allowNetwork: { flag: '--allow-network', harmless: (value) => value === false },
  passEnv: { flag: '--pass-env NAME', harmless: (value) => Array.isArray(value) && value.length === 0 },
  // Where the run's news goes (a repository's colony.json could send it to its author).
  notify: { flag: '--notify URL' },
};

/** Keys of a `models[]` entry an implicit file may not set. */
const GUARDED_MODEL_KEYS = ['baseUrl', 'apiKeyEnv'] as const;

interface Refused {
  key: string;
  flag: string | null;
}

/**
 * The keys of an implicit config file that it may not set, in file order. `overridden(key)` is true
 * when a flag or the environment sets that key (the file's value is then never used).
 */
export function refusedImplicitKeys(
  file: Record<string, unknown>,
  overridden: (key: string) => boolean,
): Refused[] {
  const refused: Refused[] = [];
  for (const [key, value] of Object.entries(file)) {
    const guard = GUARDED[key];
    if (guard && !overridden(key) && !guard.harmless?.(value)) refused.push({ key, flag: guard.flag });
    if (key === 'models' && Array.isArray(value)) refused.push(...refusedModelKeys(value));
    // A profile's agent CLI is a command Colony runs (`cmd:…`, or a binary with the run's model).
    if (key === 'profiles' && value && typeof value === 'object')
      for (const [name, profile] of Object.entries(value as Record<string, unknown>))
        if (profile && typeof profile === 'object' && 'cli' in profile)
          refused.push({ key: `profiles.${name}.cli`, flag: null });
  }
  return refused;
}

function refusedModelKeys(models: unknown[]): Refused[] {
  const refused: Refused[] = [];
  models.forEach((entry, index) => {
    if (!entry || typeof entry !== 'object') return;
    const record = entry as Record<string, unknown>;
    for (const key of GUARDED_MODEL_KEYS)
      if (record[key] !== undefined)
        refused.push({ key: `models[${index}].${key}`, flag: key === 'baseUrl' ? '--base-url URL' : null });
    // Replacing a known model could zero its prices (a money budget would never bind) or reroute it.
    if (typeof record.id === 'string' && KNOWN_MODELS.some((m) => m.id === record.id))
      refused.push({ key: `models[${index}] (replaces the known model ${record.id})`, flag: null });
  });
  return refused;
}

/** The usage error for an implicit file that sets guarded keys: the file, the keys and both fixes. */
export function implicitFileError(path: string, refused: Refused[]): string {
  const flags = [...new Set(refused.flatMap((r) => (r.flag ? [r.flag] : [])))];
  const flagless = refused.filter((r) => r.flag === null).map((r) => r.key);
  const instead =
    flags.length > 0
      ? `, or remove ${refused.length === 1 ? 'it' : 'them'} and pass ${flags.join(', ')} instead${flagless.length > 0 ? ` (${flagless.join(', ')}: only in a file named with --config)` : ''}`
      : '';
  return (
    `config file ${path} was found in the current folder, not named with --config, so it is not trusted ` +
    `with what runs or where API keys go; it sets ${refused.map((r) => r.key).join(', ')}. ` +
    `Trust it with --config ${path}${instead}`
  );
}

/**
 * The first endpoint a config file chooses that would receive a vendor's key not meant for it, as a
 * usage error; null when every key goes to its own vendor. `fileBaseUrl` is the file's top-level
 * `baseUrl` when no flag overrides it (it applies to the run's model).
 */
export function vendorKeyError(options: {
  path: string;
  runModel: string;
  fileBaseUrl: string | undefined;
  flagBaseUrl: string | undefined;
  models: ModelRecord[];
  env: Record<string, string | undefined>;
}): string | null {
  const { path, runModel, fileBaseUrl, flagBaseUrl, models, env } = options;
  if (fileBaseUrl !== undefined) {
    const run = resolveModel(runModel, { custom: models, baseUrl: fileBaseUrl });
    const foreign = run.ok ? foreignKeyHost(run.model, fileBaseUrl) : null;
    if (foreign)
      return (
        `config file ${path} sets baseUrl ${fileBaseUrl} for model '${runModel}', which would send it ` +
        `${foreign.keyEnv} (a key for ${foreign.hosts.join(', ')} only). Choose that endpoint yourself with ` +
        `--base-url ${fileBaseUrl}, or describe the model in "models" with "apiKeyEnv" naming the variable ` +
        `that holds this endpoint's key (any name; unset is fine for a server that needs none)`
      );
  }
  for (const [index, model] of models.entries()) {
    // The run's model goes wherever --base-url or the file's baseUrl (checked above) points.
    if (model.id === runModel && (flagBaseUrl !== undefined || fileBaseUrl !== undefined)) continue;
    const url = model.baseUrl ?? defaultUrl(model, env);
    const foreign = url === undefined ? null : foreignKeyHost(model, url);
    if (!foreign) continue;
    const where = model.baseUrl !== undefined ? `baseUrl ${url}` : `no baseUrl (so ${url})`;
    return (
      `config file ${path}: models[${index}] ('${model.id}') has ${where} but would be sent ` +
      `${foreign.keyEnv}, a key for ${foreign.hosts.join(', ')} only. Set that entry's "apiKeyEnv" to ` +
      "the variable holding this endpoint's own key (any name; unset is fine for a server that needs " +
      'none), or drop its baseUrl and choose the endpoint with --base-url'
    );
  }
  return null;
}

/** The vendor default a record without a base URL calls, unless the environment chose its endpoint. */
function defaultUrl(model: ModelRecord, env: Record<string, string | undefined>): string | undefined {
  const fallback = baseUrlFor(model, {});
  return baseUrlFor(model, env) === fallback ? fallback : undefined;
}
