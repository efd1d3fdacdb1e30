/**
 * The run spec as it is stored in `run.started` and read back by `colony resume`, `stop` and the
 * server: a versioned zod schema, so a spec written by another version of Colony (or edited by hand)
 * is refused with a clear message instead of being cast and trusted.
 */
import { z } from 'zod';
import { COORDINATION_CAPABILITIES, PROFILE_NAMES } from '../agent/profiles.js';
import { AGENT_CLI_KINDS, type RunSpec, TOPOLOGY_NAMES } from './run-spec.js';

/** Raise when a stored spec's meaning changes; readers refuse versions they do not know. */
export const RUN_SPEC_VERSION = 1;

const positiveInt = z.number().int().positive();
const nonNegative = z.number().nonnegative();
const agentCliChoice = z
  .strictObject({
    kind: z.enum(AGENT_CLI_KINDS),
    command: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
  })
  .refine((cli) => cli.kind !== 'cmd' || cli.command !== undefined, { message: 'cmd needs a command' });

const modelRecordSchema = z.strictObject({
  id: z.string().min(1),
  protocol: z.enum(['openai-chat', 'openai-responses', 'anthropic', 'scripted']),
  name: z.string().min(1),
  baseUrl: z.string().optional(),
  apiKeyEnv: z.string().optional(),
  contextWindow: positiveInt,
  maxOutput: positiveInt,
  prices: z
    .strictObject({
      input: nonNegative,
      cachedInput: nonNegative,
      cacheWrite: nonNegative,
      output: nonNegative,
    })
    .nullable(),
});

export const runSpecSchema = z.strictObject({
  runId: z.string().min(1),
  topology: z.enum(TOPOLOGY_NAMES),
  agents: positiveInt.optional(),
  concurrency: positiveInt.optional(),
  repo: z.string().min(1),
  goal: z.string(),
  baseRef: z.string().min(1),
  baseCommit: z.string().min(1),
  model: z.string().min(1),
  baseUrl: z.string().optional(),
  customModels: z.array(modelRecordSchema),
  scenario: z.string().optional(),
  setup: z.string().optional(),
  verify: z.string().optional(),
  mergeVerify: z.string().optional(),
  workflow: z
    .strictObject({ file: z.string(), js: z.string(), args: z.record(z.string(), z.string()) })
    .optional(),
  deadlineAt: z.string().optional(),
  idleMs: positiveInt.optional(),
  claimLeaseMs: positiveInt.optional(),
  autoResume: z.boolean().optional(),
  integrators: z.number().int().nonnegative().optional(),
  approveMerges: z.boolean().optional(),
  attempt: z
    .strictObject({
      group: z.string().min(1),
      index: z.number().int().positive(),
      of: z.number().int().positive(),
    })
    .optional(),
  fleet: z
    .strictObject({
      listen: z.string().optional(),
      advertiseUrl: z.string().optional(),
      tls: z.strictObject({ cert: z.string().min(1), key: z.string().min(1) }).optional(),
      insecureHttp: z.boolean().optional(),
    })
    .optional(),
  agentCli: z
    .strictObject({
      kind: z.enum(AGENT_CLI_KINDS),
      command: z.string().min(1).optional(),
      agents: z.array(z.string().min(1)).optional(),
      byAgent: z.record(z.string(), agentCliChoice).optional(),
    })
    .refine((cli) => cli.kind !== 'cmd' || cli.command !== undefined, { message: 'cmd needs a command' })
    .optional(),
  maxSteps: positiveInt,
  peerSettings: z
    .record(
      z.string(),
      z.strictObject({ model: z.string().min(1).optional(), maxSteps: positiveInt.optional() }),
    )
    .optional(),
  leadMaxSteps: positiveInt.optional(),
  subagentMaxSteps: positiveInt.optional(),
  leadDelegation: z.enum(['tasks', 'programs', 'both']).optional(),
  maxStartsPerAgent: positiveInt.optional(),
  maxAgents: positiveInt.optional(),
  maxOpenWorkflows: positiveInt.optional(),
  profiles: z
    .record(
      z.string(),
      z.strictObject({
        base: z.enum(PROFILE_NAMES),
        model: z.string().optional(),
        maxSteps: positiveInt.optional(),
        prompt: z.string().optional(),
        cli: agentCliChoice.optional(),
        coordination: z.array(z.enum(COORDINATION_CAPABILITIES)).optional(),
      }),
    )
    .optional(),
  accept: z.string().optional(),
  // 0 rounds: check acceptance once, never ask the lead to fix (the CLI accepts --accept-rounds 0).
  acceptRounds: z.number().int().nonnegative().optional(),
  budgetUsd: nonNegative.optional(),
  budgetTokens: positiveInt.optional(),
  profile: z.string().min(1),
  stream: z.boolean(),
  modelTimeoutMs: positiveInt,
  maxRetries: z.number().int().nonnegative(),
  bashTimeoutS: positiveInt,
  // Optional: a spec stored before the sandbox reads back as not contained (as it ran); same version.
  sandbox: z
    .strictObject({
      enabled: z.boolean(),
      network: z.boolean(),
      passEnv: z.array(z.string()),
      offReason: z.string().optional(),
    })
    .optional(),
});

// The schema and the RunSpec type must describe the same thing: this fails to compile when they drift.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Exact<z.infer<typeof runSpecSchema>, RunSpec> = true;
void sameShape;

/** The stored form: the spec plus its version. */
export function storedRunSpec(spec: RunSpec): Record<string, unknown> {
  return { ...spec, specVersion: RUN_SPEC_VERSION };
}

/** A stored spec read back: validated, or an error naming what is wrong. Specs from before versions count as 1. */
export function parseStoredRunSpec(
  stored: Record<string, unknown>,
): { ok: true; spec: RunSpec } | { ok: false; error: string } {
  const { specVersion = 1, ...fields } = stored;
  if (specVersion !== RUN_SPEC_VERSION) {
    return {
      ok: false,
      error: `the run was recorded with run spec version ${String(specVersion)}; this Colony reads version ${RUN_SPEC_VERSION}`,
    };
  }
  const parsed = runSpecSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'spec';
    return {
      ok: false,
      error: `the run's stored spec is invalid at ${where}: ${issue?.message ?? 'unknown'}`,
    };
  }
  return { ok: true, spec: parsed.data };
}
