/** Coordination: claims, the shared context, messages. */
import type { Applied, Handlers } from '../run-state.js';
import type { HeldClaim } from '../types.js';
import { act, oneLine } from './helpers.js';

function releaseClaim({ state, event, agent }: Applied<'claim.released' | 'claim.expired'>): void {
  const d = event.data;
  const held = state.claims.get(d.claimId);
  state.claims.delete(d.claimId);
  // The table knows the holder; an expired claim's event agent may be someone else.
  const holder = held
    ? state.agents.get(held.agent)
    : event.kind === 'claim.expired'
      ? state.agents.get(event.data.holder)
      : agent;
  if (holder?.claim?.claimId === d.claimId) {
    // Show the holder's most recent other claim, if it still holds one.
    let other: HeldClaim | null = null;
    for (const c of state.claims.values()) if (c.agent === holder.name) other = c;
    holder.claim = other
      ? { claimId: other.claimId, scope: other.scope, summary: other.summary, sinceMs: other.sinceMs }
      : null;
  }
}

export const coordinationHandlers: Handlers = {
  'claim.granted': ({ state, event, at, agent, name }) => {
    if (!agent || !name) return;
    const d = event.data;
    agent.claim = { claimId: d.claimId, scope: d.scope, summary: d.summary, sinceMs: at };
    state.claims.set(d.claimId, { ...agent.claim, agent: name });
    act(agent, `claimed ${d.scope}`, at);
  },
  'claim.released': releaseClaim,
  'claim.expired': releaseClaim,
  'claim.conflict': ({ event, at, agent }) => {
    if (agent) {
      const d = event.data;
      act(agent, `claim conflict on ${d.scope} (held by ${d.holder})`, at);
    }
  },
  'context.posted': ({ state, event, at, agent, name }) => {
    const d = event.data;
    state.context.push({
      id: d.id,
      seq: event.seq,
      tMs: at,
      agent: name,
      kind: d.kind,
      summary: d.summary,
      scope: d.scope,
    });
    if (agent) act(agent, `posted ${d.kind}: ${oneLine(d.summary, 90)}`, at);
  },
  'message.sent': ({ state, event, at, name }) => {
    const d = event.data;
    state.messages.set(d.id, {
      id: d.id,
      seq: event.seq,
      tMs: at,
      from: name,
      to: d.to,
      channel: d.channel,
      text: d.text,
      deliveredMs: null,
      via: null,
    });
  },
  'message.delivered': ({ state, event, at, agent }) => {
    const d = event.data;
    for (const id of d.ids) {
      const message = state.messages.get(id);
      if (message && message.deliveredMs === null) {
        message.deliveredMs = at;
        message.via = d.via;
      }
    }
    if (agent && d.via === 'interrupt')
      act(agent, `interrupted by ${d.messages.map((m) => m.from).join(', ')}`, at);
  },
};
