import type { ScriptedPolicy } from '../model/providers/scripted.js';
import { peersDemoPolicy } from './peers-policy.js';
import { reviewDemoPolicy } from './review-policy.js';
import { soloDemoPolicy } from './solo-policy.js';

/** Bundled scripted scenarios, by name. The scripted model runs only these. */
const SCENARIOS: Record<string, ScriptedPolicy> = {
  'solo-demo': soloDemoPolicy,
  'peers-demo': peersDemoPolicy,
  'review-demo': reviewDemoPolicy,
};

export function scenarioPolicy(name: string): ScriptedPolicy | undefined {
  return SCENARIOS[name];
}
