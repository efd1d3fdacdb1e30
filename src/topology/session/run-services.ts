/**
 * The services of one run in one process, built in one place for the run's owner (execute-run.ts) and
 * for a fleet worker hosting some of its agents (worker/worker-run.ts): the scrubbed log, the run's
 * models behind its rate gate (whose 429s reach the run's other processes, coord/rate-signal.ts),
 * agents' command environment and sandbox, and each agent's direct-message injector. The money and
 * token budget is run-wide through the log (run/logged-spend.ts); coordination is the process's own.
 */
import { agentEnv } from '../../agent/tools/env.js';
import { type Coordination, directMessageInjector } from '../../coord/index.js';
import { linkRateSignal } from '../../coord/rate-signal.js';
import { eventOf } from '../../core/events.js';
import { createScrubber, type Scrubber, secretValuesFromEnv } from '../../core/secrets.js';
import { err, ok, type Result } from '../../lang/result.js';
import type { ModelCatalog, Upstream } from '../../model/catalog.js';
import type { Message, Provider } from '../../model/types.js';
import { RateGate } from '../../run/rate-gate.js';
import { gatedProviders, runCatalog } from '../../run/run-catalog.js';
import type { RunSpec } from '../../run/run-spec.js';
import { openSandbox, type Sandbox } from '../../sandbox/index.js';
import type { Store } from '../../store/index.js';
import { scrubbingLog } from '../../store/scrubbing-log.js';
import type { EventLog } from '../../store/types.js';
import type { ProviderFor } from '../context.js';
import type { Emit } from '../team/team-run.js';

export interface RunServices {
  scrubber: Scrubber;
  /** The run's log, scrubbed at the store boundary whoever appends. */
  log: EventLog;
  /** Appends a scrubbed event of the run (run-level when `agent` is null). */
  emit: Emit;
  catalog: ModelCatalog;
  /** The run's model, behind the gate. */
  provider: Provider;
  /** Another model's provider (profiles, per-agent models), behind the same gate. */
  providerForModel: ProviderFor;
  gate: RateGate;
  /** A model's endpoint and real key (the model proxy of external agent CLIs forwards there). */
  upstream(model?: string): Upstream | undefined;
  /** Environment for agents' commands, setup and checks (an allow-list; no secrets). */
  commandEnv: NodeJS.ProcessEnv;
  sandbox: Sandbox | null;
  injectorFor(agent: string): () => Promise<Message[]>;
  /** Stops listening for the run's rate signals (the log, gate and coordination stay usable). */
  close(): void;
}

export interface RunServicesOptions {
  spec: RunSpec;
  store: Pick<Store, 'pool'>;
  /** The store's log (maybe observed by the caller); the services scrub it. */
  log: EventLog;
  coord: Coordination;
  env: NodeJS.ProcessEnv;
  /** Secret values from config, beside those found in the environment. */
  extraSecrets?: string[];
  /** The run's model provider (default: from the catalog; tests pass their own). */
  provider?: Provider;
  /** The models profiles may name (default: the run's catalog, from the spec and `env`). */
  catalog?: ModelCatalog;
}

export async function openRunServices(options: RunServicesOptions): Promise<Result<RunServices>> {
  const { spec, env, coord } = options;
  const runId = spec.runId;
  // A run that started sandboxed stays sandboxed wherever it runs: refused where bubblewrap is missing.
  const sandbox = await openSandbox(spec.sandbox, env);
  if (!sandbox.ok) return err(sandbox.error);
  const catalog = options.catalog ?? runCatalog(spec, env);
  const own = options.provider
    ? { ok: true as const, provider: options.provider }
    : catalog.provider(spec.model);
  if (!own.ok) return err(own.error);
  const scrubber = createScrubber([...secretValuesFromEnv(env), ...(options.extraSecrets ?? [])]);
  const log = scrubbingLog(options.log, scrubber);
  const emit: Emit = (kind, data, agent = null) =>
    log.append(eventOf(runId, agent, kind, scrubber.scrubValue(data)));
  // One gate per process, linked to the run's others: a 429 anywhere lowers every process's limit.
  let announce: (value: number) => void = () => {};
  const gate = new RateGate({
    onShrink: ({ value, used }) => {
      announce(value);
      void emit('limit.hit', { limit: 'model_concurrency', value, used }).catch(() => {});
    },
  });
  const signal = linkRateSignal({
    pool: options.store.pool,
    listener: coord.listener,
    runId,
    onElsewhere: () => gate.shrinkFromElsewhere(),
  });
  announce = (value) => signal.announce(value);
  const provider = gate.wrap(own.provider);
  return ok({
    scrubber,
    log,
    emit,
    catalog,
    provider,
    providerForModel: gatedProviders(catalog, gate, provider),
    gate,
    upstream: (model) => {
      const found = catalog.upstream(model);
      return found.ok ? found.upstream : undefined;
    },
    commandEnv: agentEnv(env),
    sandbox: sandbox.value,
    injectorFor: (agent) => directMessageInjector(coord.messages, runId, agent),
    close: () => signal.stop(),
  });
}
