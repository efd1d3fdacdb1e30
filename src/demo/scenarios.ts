import type { ScriptedPolicy } from '../model/providers/scripted.js';
import { bugHuntDemoPolicy } from './bug-hunt-policy.js';
import { orchestratedPolicy } from './orchestrated-policy.js';
import { peersDemoPolicy } from './peers-policy.js';
import { plannedDemoPolicy } from './planned-policy.js';
import { reviewDemoPolicy } from './review-policy.js';
import { soloDemoPolicy } from './solo-policy.js';

/** Bundled scripted scenarios, by name. The scripted model runs only these. */
const SCENARIOS: Record<string, ScriptedPolicy> = {
  'solo-demo': soloDemoPolicy,
  'peers-demo': peersDemoPolicy,
  'orchestrated-demo': orchestratedPolicy(),
  'review-demo': reviewDemoPolicy,
  'bug-hunt-demo': bugHuntDemoPolicy,
  'planned-demo': plannedDemoPolicy,
};

export function scenarioPolicy(name: string): ScriptedPolicy | undefined {
  return SCENARIOS[name];
}
