/**
 * The scripted model of the fleet's integrator tests (served by the fake provider): peers as in
 * fleet-policy.ts, and peer-1, the integrator, reviewing the others' requests after its own work.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';
import { fleetPeersPolicy } from './fleet-policy.js';

export const INTEGRATOR = 'peer-1';

/**
 * Every peer claims, writes and merges its file, releases and answers (fleet-policy.ts); the
 * integrator then reviews: review_queue until a request waits (a second's pause when none does),
 * review_merge approving each, until it approved all the others'.
 */
export function integratorsPolicy(others: number): ScriptedPolicy {
  const own = fleetPeersPolicy(1);
  return (request, index) => {
    const id = /Your peer ID is (peer-\d+)/.exec(request.system)?.[1];
    const results = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
    if (id !== INTEGRATOR || results.length < 4) return own(request, index);
    const usage = { input: 100, cachedInput: 0, output: 10 };
    const call = (name: string, args: Record<string, unknown>) => ({
      toolCalls: [{ name, arguments: args }],
      usage,
    });
    if (results.filter((r) => r.startsWith('Approved MR')).length >= others)
      return { text: `${INTEGRATOR} reviewed every request`, usage };
    const last = results.at(-1) ?? '';
    const waiting = /## MR (\d+) by (peer-\d+)/.exec(last);
    if (waiting)
      return call('review_merge', {
        mr: Number(waiting[1]),
        decision: 'approve',
        reason: 'adds its own file',
      });
    if (last.startsWith('No merge request waits')) return call('bash', { command: 'sleep 1' });
    return call('review_queue', {});
  };
}
