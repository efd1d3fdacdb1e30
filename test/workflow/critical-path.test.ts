/** The critical path of a w.dag plan (src/workflow/critical-path.ts): ranks, ties, weights, bad graphs. */
import { describe, expect, it } from 'vitest';
import { DagPlanError, type PlanNode, planDag } from '../../src/workflow/critical-path.js';

const node = (name: string, after: string[] = [], weight = 1): PlanNode => ({ name, after, weight });

describe('planDag', () => {
  it('ranks every node by its longest chain to the end and finds the critical path', () => {
    // s1..s4 alone, a1 → a2 → a3 → a4: the chain is the critical path.
    const plan = planDag([
      node('s1'),
      node('s2'),
      node('s3'),
      node('s4'),
      node('a1'),
      node('a2', ['a1']),
      node('a3', ['a2']),
      node('a4', ['a3']),
    ]);
    expect(Object.fromEntries(plan.ranks)).toEqual({
      s1: 1,
      s2: 1,
      s3: 1,
      s4: 1,
      a1: 4,
      a2: 3,
      a3: 2,
      a4: 1,
    });
    expect(plan.criticalPath).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(plan.criticalSteps).toBe(4);
    // Higher rank first; equal ranks in declaration order (s1..s4 were declared before a4).
    expect(plan.order).toEqual(['a1', 'a2', 'a3', 's1', 's2', 's3', 's4', 'a4']);
  });

  it('breaks ties by declaration order, in the order and in the path', () => {
    // a → {b, c} → d: b and c tie; b is declared first.
    const plan = planDag([node('a'), node('c', ['a']), node('b', ['a']), node('d', ['b', 'c'])]);
    expect(plan.criticalPath).toEqual(['a', 'c', 'd']);
    expect(plan.order).toEqual(['a', 'c', 'b', 'd']);
    // Two sources of the same rank: the first declared starts the path.
    expect(planDag([node('y'), node('x')]).criticalPath).toEqual(['y']);
  });

  it('weighs nodes: a heavy single node outranks a chain of light ones', () => {
    const plan = planDag([node('a1', [], 1), node('a2', ['a1'], 1), node('big', [], 5)]);
    expect(plan.criticalPath).toEqual(['big']);
    expect(plan.criticalSteps).toBe(5);
    expect(plan.order).toEqual(['big', 'a1', 'a2']);
    // Weights add along the chain: 2 + 3 + 0 = 5, and zero-weight nodes are allowed.
    const chain = planDag([node('p', [], 2), node('q', ['p'], 3), node('r', ['q'], 0), node('t', [], 4)]);
    expect(chain.criticalPath).toEqual(['p', 'q', 'r']);
    expect(chain.criticalSteps).toBe(5);
    expect(Object.fromEntries(chain.ranks)).toEqual({ p: 5, q: 3, r: 0, t: 4 });
  });

  it('plans an empty graph as nothing', () => {
    expect(planDag([])).toEqual({ ranks: new Map(), criticalPath: [], criticalSteps: 0, order: [] });
  });

  it('rejects a cycle, naming its loop', () => {
    const cycle = () => planDag([node('a', ['c']), node('b', ['a']), node('c', ['b']), node('d')]);
    expect(cycle).toThrow(DagPlanError);
    expect(cycle).toThrow('dag: cycle a → c → b → a');
    expect(() => planDag([node('self', ['self'])])).toThrow('dag: cycle self → self');
  });

  it('rejects an unknown predecessor and a bad weight', () => {
    expect(() => planDag([node('a', ['ghost'])])).toThrow('dag: node "a" waits for unknown node "ghost"');
    expect(() => planDag([node('a', [], -1)])).toThrow('dag: node "a" has weight -1');
    expect(() => planDag([node('a', [], Number.NaN)])).toThrow(DagPlanError);
  });
});
