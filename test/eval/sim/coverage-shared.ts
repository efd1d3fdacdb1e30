/**
 * Shared by the coverage tests (coverage*.test.ts, split in three files so they run in parallel): the
 * population, the arms, and the check that a coverage is nominal.
 */
import { expect } from 'vitest';
import type { SimPopulation } from '../../../src/eval/sim/sim-population.js';
import { simArm } from '../../../src/eval/sim/sim-truth.js';

export const SEEDS = 1000;
export const ARMS = [simArm('solo', 1), simArm('team-4', 4)];

// Heterogeneous effects (0 to +20 pp per task), repositories that shift their tasks' chances
// together (clustering), and chances near 0 and 1 where clipping bends the effect.
export const POPULATION: SimPopulation = {
  repos: 8,
  tasksPerRepo: 5,
  soloRates: [0.1, 0.3, 0.5, 0.7, 0.9],
  repoShifts: [-0.2, 0, 0.2],
  effects: { 'team-4': [0, 0.1, 0.2] },
};

export function covers(ci: { lo: number; hi: number } | null | undefined, truth: number): boolean {
  return ci !== null && ci !== undefined && ci.lo <= truth && truth <= ci.hi;
}

export function expectNominal(name: string, coverage: number): void {
  console.log(`coverage, ${name}: ${(coverage * 100).toFixed(1)}%`);
  expect(coverage, name).toBeGreaterThanOrEqual(0.91);
  expect(coverage, name).toBeLessThanOrEqual(0.99);
}
