/**
 * The `sim:` model id: a SIMULATED agent, no model is called. `sim:p=0.6&task=DIR&seed=S` (URL query
 * syntax after `sim:`, values percent-encoded) says how likely a trial of the task in DIR succeeds,
 * which draw to make and how slow a call is. It exists to check the eval harness and its statistics
 * against a known truth, never to measure a model.
 */
import type { ModelRecord, Prices } from '../types.js';

export const SIM_PREFIX = 'sim:';

/** Made-up prices, so a simulated trial has a cost the report can show (labelled simulated). */
const SIM_PRICES: Prices = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 };

export interface SimSpec {
  /** The chance a trial succeeds; null when `truth` decides. */
  p: number | null;
  /** A JSON file `{ "default"?: P, "tasks": { "<task id>": P } }` of per-task chances. */
  truth: string | null;
  /** The eval task folder (task.json and reference.patch); without it the agent has nothing to do. */
  task: string | null;
  /** The draw's seed: the same seed draws the same outcome (the eval runner uses arm/task/trial). */
  seed: string;
  /** Delay of each call (ms). */
  latencyMs: number;
}

export function isSimModelId(id: string): boolean {
  return id.startsWith(SIM_PREFIX);
}

const KEYS = new Set(['p', 'truth', 'task', 'seed', 'latency']);

/** Parses a `sim:` model id; every problem is named (a typo must not silently mean p = 0). */
export function parseSimModelId(id: string): { ok: true; spec: SimSpec } | { ok: false; error: string } {
  if (!isSimModelId(id)) return { ok: false, error: `'${id}' is not a sim: model id` };
  const params = new URLSearchParams(id.slice(SIM_PREFIX.length));
  for (const key of params.keys())
    if (!KEYS.has(key))
      return {
        ok: false,
        error: `sim model '${id}': unknown parameter '${key}' (use p, truth, task, seed, latency)`,
      };
  const pText = params.get('p');
  const truth = params.get('truth');
  if ((pText === null) === (truth === null))
    return { ok: false, error: `sim model '${id}': give exactly one of p=PROBABILITY or truth=FILE` };
  let p: number | null = null;
  if (pText !== null) {
    p = Number(pText);
    if (pText.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1)
      return { ok: false, error: `sim model '${id}': p must be a number from 0 to 1, got '${pText}'` };
  }
  const latencyText = params.get('latency') ?? '0';
  const latencyMs = Number(latencyText);
  if (!Number.isFinite(latencyMs) || latencyMs < 0)
    return { ok: false, error: `sim model '${id}': latency must be milliseconds ≥ 0, got '${latencyText}'` };
  return {
    ok: true,
    spec: { p, truth, task: params.get('task'), seed: params.get('seed') ?? '0', latencyMs },
  };
}

/** The model id with these parameters (what the eval runner hands a trial). */
export function simModelId(spec: Partial<SimSpec> & Pick<SimSpec, 'seed'>): string {
  const params = new URLSearchParams();
  if (spec.p !== undefined && spec.p !== null) params.set('p', String(spec.p));
  if (spec.truth) params.set('truth', spec.truth);
  if (spec.task) params.set('task', spec.task);
  params.set('seed', spec.seed);
  if (spec.latencyMs) params.set('latency', String(spec.latencyMs));
  return `${SIM_PREFIX}${params.toString()}`;
}

/** The model record of a `sim:` id: no network, no key; its name says it is simulated. */
export function simModelRecord(id: string): { ok: true; model: ModelRecord } | { ok: false; error: string } {
  const parsed = parseSimModelId(id);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    model: {
      id,
      protocol: 'scripted',
      name: 'sim (simulated)',
      contextWindow: 128_000,
      maxOutput: 8_192,
      prices: SIM_PRICES,
    },
  };
}

/** A uniform draw in [0, 1) from a string (FNV-1a, then one mulberry32 step): the same seed, the same draw. */
export function simDraw(seed: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  let t = (h + 0x6d2b79f5) | 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
