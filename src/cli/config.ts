/**
 * Run configuration. Precedence: CLI flags > environment > config file (`colony.json` or --config) > defaults.
 * An implicit `colony.json` (not named with --config) may not set commands, containment or endpoints
 * and keys, and no file may send a vendor's key to another host (config-trust.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { COORDINATION_CAPABILITIES, PROFILE_NAMES } from '../agent/profiles.js';
import { parseDurationMs } from '../core/duration.js';
import { notifyConfigSchema } from '../notify/index.js';
import { RUN_DEFAULTS } from '../runner/defaults.js';
import { isEnvName, SANDBOX_MODES } from '../sandbox/index.js';
import { implicitFileError, refusedImplicitKeys, vendorKeyError } from './config-trust.js';

// Strict like the top level: a misspelt key (`contextWindw`, `cacheRead`) is an error, not a default.
const pricesSchema = z
  .object({
    input: z.number().nonnegative(),
    cachedInput: z.number().nonnegative(),
    cacheWrite: z.number().nonnegative(),
    output: z.number().nonnegative(),
  })
  .strict();

export const customModelSchema = z
  .object({
    id: z.string().min(1),
    protocol: z.enum(['openai-chat', 'openai-responses', 'anthropic']),
    name: z.string().min(1),
    baseUrl: z.string().url().optional(),
    apiKeyEnv: z.string().optional(),
    contextWindow: z.number().int().positive().default(128_000),
    maxOutput: z.number().int().positive().default(8_192),
    prices: pricesSchema.nullable().default(null),
  })
  .strict();

const durationSchema = z
  .string()
  .refine((text) => (parseDurationMs(text) ?? 0) > 0, 'expected a duration like 90s, 15m, 6h or 1d');

/** A profile of the orchestrated topology: a built-in base tool set plus its own model, step cap, role prompt. */
export const profileSchema = z
  .object({
    base: z.enum(PROFILE_NAMES),
    model: z.string().min(1).optional(),
    maxSteps: z.number().int().positive().optional(),
    /** Prepended to the system prompt the lead gives a subagent of this profile. */
    system: z.string().optional(),
    /** An external agent CLI drives its subagents: claude-code, codex or cmd:COMMAND (docs/agent-cli.md). */
    cli: z.string().min(1).optional(),
    /** The coordination tools its agents get, replacing the topology's default ([] for none; docs/coordination.md). */
    coordination: z.array(z.enum(COORDINATION_CAPABILITIES)).optional(),
  })
  .strict();

/** peers: one peer's own model and step cap (by peer name: `"peer-2": {"model": "…", "maxSteps": 20}`). */
export const peerSettingSchema = z
  .object({
    model: z.string().min(1).optional(),
    maxSteps: z.number().int().positive().optional(),
  })
  .strict();

/** Scheduler limits (docs/scheduler.md); unset ones keep the scheduler's defaults. */
export const limitsSchema = z
  .object({
    concurrency: z.number().int().positive().optional(),
    maxStartsPerAgent: z.number().int().positive().optional(),
    maxAgents: z.number().int().positive().optional(),
    /** orchestrated: open workflow runs per lead at once (default 10). */
    maxOpenWorkflows: z.number().int().positive().optional(),
  })
  .strict();

export const configSchema = z
  .object({
    model: z.string().min(1),
    baseUrl: z.string().url().optional(),
    models: z.array(customModelSchema),
    maxSteps: z.number().int().positive(),
    budgetUsd: z.number().positive().optional(),
    budgetTokens: z.number().int().positive().optional(),
    setup: z.string().optional(),
    verify: z.string().optional(),
    base: z.string().optional(),
    modelTimeoutMs: z.number().int().positive(),
    maxRetries: z.number().int().nonnegative(),
    bashTimeoutS: z.number().int().positive(),
    profile: z.string(),
    stream: z.boolean(),
    /** How long a run may take (e.g. `6h`); it then ends as `deadline_exceeded`. */
    deadline: durationSchema,
    /** peers: a peer with no event for this long gets a nudge; after twice as long it is stalled. */
    idle: durationSchema,
    /**
     * How long a claim lasts without its holder's heartbeat (renewed at a fifth of it): a crashed
     * agent's files go back to the team after this long. Default 5m (coord/claims.ts).
     */
    /** false: supervisors never resume this run on their own when its process dies (docs/recovery.md). */
    autoResume: z.boolean().optional(),
    claimLease: z
      .string()
      .refine(
        (text) => (parseDurationMs(text) ?? 0) >= 1000,
        'expected a duration of at least 1s, like 30s or 5m',
      )
      .optional(),
    /** orchestrated: profiles beyond (or overriding) the built-in ones; names like subagent names. */
    profiles: z
      .record(z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'profile names are lower-case'), profileSchema)
      .optional(),
    limits: limitsSchema.optional(),
    /** peers: a model and/or step cap per peer; --peer-models and --peer-max-steps win per field. */
    peers: z.record(z.string(), peerSettingSchema).optional(),
    /** orchestrated: the acceptance check after the team finishes (failures go back to their owners). */
    accept: z.string().min(1).optional(),
    /** orchestrated: fix rounds of the acceptance check at most (default 2). */
    acceptRounds: z.number().int().nonnegative().optional(),
    /** Agents' commands in a bubblewrap sandbox: on (default; fails without it), auto, off (docs/sandbox.md). */
    sandbox: z.enum(SANDBOX_MODES),
    /** The sandbox shares the host's network (setup does on the base commit's tree anyway). */
    allowNetwork: z.boolean(),
    /** peers, orchestrated: run the agents on fleet workers (`colony worker`; docs/fleet.md). */
    workers: z.boolean().optional(),
    /** Notifications to a webhook and the desktop (`--notify URL` wins over its url; docs/notify.md). */
    notify: notifyConfigSchema.optional(),
    /** Variables passed into the sandbox by name (nothing else of Colony's environment is). */
    passEnv: z.array(z.string().refine(isEnvName, 'expected a variable name like NPM_TOKEN')),
  })
  .strict();

export type ColonyConfig = z.infer<typeof configSchema>;
export type CustomModel = z.infer<typeof customModelSchema>;

/** The run's defaults (runner/defaults.ts, shared with the library) plus the CLI's own. */
export const DEFAULT_CONFIG: ColonyConfig = {
  ...RUN_DEFAULTS,
  model: 'scripted',
  models: [],
  passEnv: [],
};

/**
 * The demos' defaults: contained when bubblewrap works here, and otherwise run uncontained with the
 * summary's warning (a scripted model runs only the demo's own commands), so `npx colony demo` works
 * on a fresh machine before `npm test` has installed bubblewrap.
 */
export const DEMO_CONFIG: ColonyConfig = { ...DEFAULT_CONFIG, sandbox: 'auto' };

export type ConfigResult =
  | { ok: true; config: ColonyConfig; source: string | null }
  | { ok: false; error: string };

/** Environment variables Colony reads for configuration (beside provider keys and base URLs). */
const ENV_KEYS: Record<string, keyof ColonyConfig> = {
  COLONY_MODEL: 'model',
  COLONY_MAX_STEPS: 'maxSteps',
  COLONY_BUDGET_USD: 'budgetUsd',
  COLONY_BUDGET_TOKENS: 'budgetTokens',
  COLONY_DEADLINE: 'deadline',
  COLONY_SANDBOX: 'sandbox',
};

/** Keys whose environment value is text (the others are numbers). */
const TEXT_KEYS = new Set<keyof ColonyConfig>(['model', 'deadline', 'sandbox']);

export function loadConfig(options: {
  flags: Partial<ColonyConfig>;
  env: NodeJS.ProcessEnv;
  configFile?: string;
  cwd: string;
}): ConfigResult {
  const fileResult = readConfigFile(options.configFile, options.cwd);
  if (!fileResult.ok) return fileResult;

  const flags = definedOnly(options.flags);
  const fromEnv: Record<string, unknown> = {};
  // Where a setting's value came from the environment, its errors name the variable, not the key.
  const envNames = new Map<string, string>();
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const value = options.env[name];
    // A flag for the same setting wins: the variable is not read.
    if (value === undefined || value === '' || key in flags) continue;
    const label = `${name}=${value} (${key})`;
    if (TEXT_KEYS.has(key)) fromEnv[key] = value;
    else {
      const number = Number(value);
      if (!Number.isFinite(number))
        return { ok: false, error: `invalid configuration: ${label}: not a number` };
      fromEnv[key] = number;
    }
    envNames.set(key, label);
  }
  const above: Record<string, unknown> = { ...fromEnv, ...flags };
  if (fileResult.path && !fileResult.explicit) {
    const refused = refusedImplicitKeys(fileResult.value, (key) => key in above);
    if (refused.length > 0) return { ok: false, error: implicitFileError(fileResult.path, refused) };
  }
  const merged: Record<string, unknown> = { ...DEFAULT_CONFIG, ...fileResult.value, ...above };
  // Limits merge key by key (a flag for one limit keeps the file's others).
  const fileLimits = fileResult.value.limits;
  if (options.flags.limits && fileLimits && typeof fileLimits === 'object')
    merged.limits = { ...fileLimits, ...definedOnly(options.flags.limits) };
  // Per-peer settings merge peer by peer and field by field (--peer-max-steps keeps the file's model).
  const filePeers = fileResult.value.peers;
  if (options.flags.peers && filePeers && typeof filePeers === 'object')
    merged.peers = mergePeers(filePeers as Record<string, object>, options.flags.peers);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const where = fileResult.path ? ` (config file ${fileResult.path}, environment or flags)` : '';
    return { ok: false, error: `invalid configuration${where}: ${formatIssues(parsed.error, envNames)}` };
  }
  const config = parsed.data;
  if (fileResult.path) {
    const fileBaseUrl = options.flags.baseUrl === undefined ? fileResult.value.baseUrl : undefined;
    const misrouted = vendorKeyError({
      path: fileResult.path,
      runModel: config.model,
      fileBaseUrl: typeof fileBaseUrl === 'string' ? fileBaseUrl : undefined,
      flagBaseUrl: options.flags.baseUrl,
      models: config.models,
      env: options.env,
    });
    if (misrouted) return { ok: false, error: misrouted };
  }
  return { ok: true, config, source: fileResult.path };
}

function readConfigFile(
  explicit: string | undefined,
  cwd: string,
):
  | { ok: true; value: Record<string, unknown>; path: string | null; explicit: boolean }
  | { ok: false; error: string } {
  const path = explicit ? resolve(cwd, explicit) : resolve(cwd, 'colony.json');
  if (!existsSync(path)) {
    if (explicit) return { ok: false, error: `config file not found: ${path}` };
    return { ok: true, value: {}, path: null, explicit: false };
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return { ok: false, error: `config file ${path} is not valid JSON: ${(err as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `config file ${path} must contain a JSON object` };
  }
  return { ok: true, value: value as Record<string, unknown>, path, explicit: explicit !== undefined };
}

function mergePeers(file: Record<string, object>, flags: Record<string, object>): Record<string, object> {
  const merged = { ...file };
  for (const [peer, setting] of Object.entries(flags)) merged[peer] = { ...file[peer], ...setting };
  return merged;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Zod's issues in one line; `names` shows a top-level key by another name (its environment variable). */
export function formatIssues(error: z.ZodError, names: ReadonlyMap<string, string> = new Map()): string {
  return error.issues
    .map((issue) => {
      const [first, ...rest] = issue.path.map(String);
      const named = first === undefined ? undefined : names.get(first);
      const path = named
        ? [named, ...rest].join('.')
        : issue.path.length > 0
          ? issue.path.join('.')
          : '(root)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}
