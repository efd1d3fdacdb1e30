/**
 * The log side of proxied calls, per run: each completed call is a `model.response` exactly like a
 * built-in agent's, numbered per agent after the agent's last logged step (read from the log once,
 * then counted here); an upstream failure is a `model.error` with the step the call would have had;
 * a refusal for the budget is one `limit.hit` per agent and limit.
 */
import type { BudgetHit } from '../agent/budget.js';
import { type EventPayloads, eventOf } from '../core/events.js';
import type { ModelError } from '../model/types.js';
import type { EventLog } from '../store/types.js';

export type ResponseRecord = Omit<EventPayloads['model.response'], 'step'>;

export class AgentMeter {
  /** Per agent: its last step, as a promise so concurrent calls are numbered one after another. */
  private readonly steps = new Map<string, Promise<number>>();
  private readonly limitsLogged = new Set<string>();

  constructor(
    private readonly runId: string,
    private readonly log: EventLog,
  ) {}

  /** Logs a completed call as the agent's next step; resolves once committed, with the step. */
  async response(agent: string, record: ResponseRecord): Promise<number> {
    const step = this.lastStep(agent).then((last) => last + 1);
    this.steps.set(agent, step);
    step.catch(() => {
      if (this.steps.get(agent) === step) this.steps.delete(agent);
    });
    const n = await step;
    await this.log.append(eventOf(this.runId, agent, 'model.response', { step: n, ...record }));
    return n;
  }

  /** Logs a failed call; it takes no step (as in the loop, the next response gets this number). */
  async error(agent: string, error: ModelError): Promise<void> {
    const step = (await this.lastStep(agent)) + 1;
    const data: EventPayloads['model.error'] = {
      step,
      kind: error.kind,
      message: error.message,
      attempts: error.attempts,
    };
    if (error.status !== undefined) data.status = error.status;
    await this.log.append(eventOf(this.runId, agent, 'model.error', data));
  }

  /** Logs a budget limit the agent's call hit, the first time per agent and limit. */
  async limit(agent: string, hit: BudgetHit): Promise<void> {
    const key = `${agent}\0${hit.limit}`;
    if (this.limitsLogged.has(key)) return;
    this.limitsLogged.add(key);
    await this.log.append(eventOf(this.runId, agent, 'limit.hit', { ...hit }));
  }

  private lastStep(agent: string): Promise<number> {
    let last = this.steps.get(agent);
    if (!last) {
      last = this.logged(agent);
      this.steps.set(agent, last);
      // A failed read is retried by the next call rather than kept.
      last.catch(() => this.steps.delete(agent));
    }
    return last;
  }

  private async logged(agent: string): Promise<number> {
    const events = await this.log.read(this.runId, { agent, kinds: ['model.response'], slim: true });
    let last = 0;
    for (const event of events) last = Math.max(last, event.data.step);
    return last;
  }
}
