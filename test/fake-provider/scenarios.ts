/** Named policies for the fake provider process (`--scenario NAME`). Stateless per request. */
import type { ScriptedPolicy } from '../../src/model/providers/scripted.js';
import { durabilityPolicy } from './scenarios-durability.js';

/** `steps` turns each calling `ls {}`, then a final answer; driven by the tool results in the request. */
export function fanoutPolicy(steps = 5): ScriptedPolicy {
  return (request) => {
    let results = 0;
    for (const m of request.messages) if (m.role === 'tool') results++;
    if (results < steps) return { toolCalls: [{ name: 'ls', arguments: {} }] };
    return { text: `Done: listed the directory ${results} times.` };
  };
}

export const scenarios: Record<string, ScriptedPolicy> = {
  fanout: fanoutPolicy(5),
  durability: durabilityPolicy,
  /** Answers every request with a short text. */
  echo: (request) => {
    const last = request.messages[request.messages.length - 1];
    return { text: `echo: ${last?.content ?? ''}` };
  },
};
