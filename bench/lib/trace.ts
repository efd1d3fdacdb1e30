/**
 * Optional timing trace for benchmarks (`--trace`): wraps a provider and an event log to measure
 * where an agent's time goes (model call as seen by the client, waiting for group commit), printed as
 * percentiles on stderr. Observation only: calls pass through unchanged.
 */
import type { Provider } from '../../src/model/types.js';
import type { PgEventLog } from '../../src/store/index.js';

export interface Trace {
  provider(inner: Provider): Provider;
  /** Patches `append` of the log in place. */
  watchLog(log: PgEventLog): void;
  report(): string;
}

export function createTrace(): Trace {
  const samples = new Map<string, number[]>();
  const add = (name: string, ms: number): void => {
    const list = samples.get(name);
    if (list) list.push(ms);
    else samples.set(name, [ms]);
  };
  return {
    provider(inner) {
      return {
        model: inner.model,
        async call(request, options) {
          const t = performance.now();
          const result = await inner.call(request, options);
          // Messages grow by 2 per step (assistant + tool result) after the task.
          add(`model call step ${Math.floor(request.messages.length / 2) + 1}`, performance.now() - t);
          return result;
        },
      };
    },
    watchLog(log) {
      const append = log.append.bind(log);
      log.append = ((event) => {
        const t = performance.now();
        const stored = append(event);
        stored.then(() => add(`commit wait ${event.kind}`, performance.now() - t)).catch(() => {});
        return stored;
      }) as PgEventLog['append'];
    },
    report() {
      const lines: string[] = [];
      for (const [name, list] of samples) {
        const sorted = [...list].sort((a, b) => a - b);
        const at = (p: number) => Math.round(sorted[Math.floor(p * (sorted.length - 1))] ?? 0);
        const mean = Math.round(list.reduce((a, b) => a + b, 0) / list.length);
        lines.push(
          `${name}: n=${list.length} mean=${mean} p50=${at(0.5)} p90=${at(0.9)} p99=${at(0.99)} max=${at(1)}`,
        );
      }
      return lines.join('\n');
    },
  };
}
