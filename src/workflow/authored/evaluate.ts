/**
 * Runs a checked program (check.ts) in a node:vm context of its own: no require or import, no
 * process, file system, network or timers (a fresh context has none of Node's globals), no code from
 * strings, and no clock or randomness (`Date`, `Math.random` and friends throw with a clear message).
 * Only plain data (JSON) and functions created inside the context cross into it: `w` is built there
 * by a prelude over one hidden host bridge, results arrive as JSON text, errors as messages — so the
 * program never holds a host object (whose `constructor.constructor` would be the host's Function).
 *
 * This is not a security boundary against hostile code (docs/workflows.md, "Programs the lead
 * writes"): the program is the lead's, type-checked, and holds no host object; real isolation would
 * need a separate process or isolate. The vm `timeout` bounds each synchronous run of program code
 * that Colony starts (the program's start and every callback given to w.map/parallel/stage/dag up to
 * its first await); code after an await runs outside it.
 */
import vm from 'node:vm';
import type { DagNode, Workflow, WorkflowProgram } from '../types.js';

export const DEFAULT_SYNC_TIMEOUT_MS = 2_000;

/** Makes the context deterministic and host-free; run once per context. */
const HARDEN = `(() => {
  'use strict';
  const refuse = (what, why) => {
    const f = function () { throw new Error(what + ' is not available in a workflow program: ' + why); };
    return f;
  };
  const clock = 'it reads the clock, and a resumed program must make the same calls';
  const date = refuse('Date', clock);
  for (const name of ['now', 'parse', 'UTC']) date[name] = refuse('Date.' + name, clock);
  const fix = (object, name, value) =>
    Object.defineProperty(object, name, { value, writable: false, configurable: false, enumerable: false });
  fix(globalThis, 'Date', date);
  fix(Math, 'random', refuse('Math.random', 'random numbers differ on resume'));
  for (const name of ['Intl', 'WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Atomics', 'WebAssembly'])
    delete globalThis[name];
})();`;

/** Builds the program's \`w\` inside the context from the hidden bridge (host functions never escape). */
const PRELUDE = `(function (bridge, argsJson) {
  'use strict';
  const call = (op, payload, fns) =>
    new Promise((resolve, reject) =>
      bridge(op, JSON.stringify(payload ?? null), fns ?? [],
        (json) => resolve(json === undefined ? undefined : JSON.parse(json)),
        (message) => reject(new Error(String(message)))));
  const branches = (op, payload, fns) => {
    const out = new Array(fns.length);
    const wrapped = fns.map((fn, i) => () => Promise.resolve(fn()).then((v) => { out[i] = v; }));
    return call(op, payload, wrapped).then(() => out);
  };
  const w = {
    args: Object.freeze(JSON.parse(argsJson)),
    agent(definition) {
      return Object.freeze({ run: (task, options) => call('run', { definition, task, options: options ?? {} }) });
    },
    parallel: (...fns) => branches('parallel', null, fns),
    map: (items, fn, options) =>
      branches('map', { concurrency: options && options.concurrency }, Array.from(items, (item, i) => () => fn(item, i))),
    stage(name, fn) {
      let out;
      return call('stage', { name }, [() => Promise.resolve(fn()).then((v) => { out = v; })]).then(() => out);
    },
    dag(nodes) {
      const names = Object.keys(nodes);
      const outs = {};
      const spec = names.map((name) => ({ name, after: (nodes[name] && nodes[name].after) || [] }));
      const fns = names.map((name, i) => () => {
        const inputs = {};
        for (const a of spec[i].after) inputs[a] = outs[a];
        return Promise.resolve(nodes[name].run(inputs)).then((v) => { outs[name] = v; });
      });
      return call('dag', spec, fns).then(() => { const r = {}; for (const n of names) r[n] = outs[n]; return r; });
    },
    sync: (point, command) => call('sync', { point, command }),
    dedupe(items, key) {
      const seen = new Set();
      const kept = [];
      for (const item of items) { const k = key(item); if (!seen.has(k)) { seen.add(k); kept.push(item); } }
      return kept;
    },
  };
  return Object.freeze(w);
})`;

type Callback = () => unknown;

/**
 * The program as a WorkflowProgram the engine runs: called with the engine's `w`, it evaluates the
 * checked script in a fresh context and runs it against a context-side `w` that forwards to it.
 */
export function evaluatorProgram(
  js: string,
  options: { args?: Record<string, string>; syncTimeoutMs?: number } = {},
): WorkflowProgram {
  const timeout = options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
  return async (w: Workflow) => {
    const context = vm.createContext(Object.create(null), {
      name: 'colony workflow program',
      codeGeneration: { strings: false, wasm: false },
    });
    vm.runInContext(HARDEN, context, { timeout });
    const slots = context as Record<string, unknown>;
    const invoker = new vm.Script('globalThis.__colonyCall(globalThis.__colonyArg)');
    /**
     * Calls a function of the context (never a host one: the program could read it from the slot)
     * with a value of the context, under the vm timeout (its synchronous part).
     */
    const invoke = (fn: unknown, arg?: unknown): unknown => {
      const previous = [slots.__colonyCall, slots.__colonyArg];
      slots.__colonyCall = fn;
      slots.__colonyArg = arg;
      try {
        return invoker.runInContext(context, { timeout });
      } catch (error) {
        throw timedOut(error, timeout);
      } finally {
        [slots.__colonyCall, slots.__colonyArg] = previous;
      }
    };
    const settle = async (fn: Callback): Promise<void> => {
      await invoke(fn);
    };
    const bridge = (
      op: string,
      payloadJson: string,
      fns: Callback[],
      resolve: (json?: string) => void,
      reject: (message: string) => void,
    ): void => {
      const callbacks = Array.from(fns);
      forward(w, op, JSON.parse(payloadJson) as Payload, callbacks, settle).then(
        (value) => resolve(value === undefined ? undefined : JSON.stringify(value)),
        (error: unknown) => reject(messageOf(error)),
      );
    };
    const prelude = vm.runInContext(PRELUDE, context, { timeout }) as (
      bridge: unknown,
      argsJson: string,
    ) => unknown;
    const programW = prelude(bridge, JSON.stringify(options.args ?? {}));
    const program = new vm.Script(js, { filename: 'program.js' }).runInContext(context, { timeout }) as (
      w: unknown,
    ) => unknown;
    return await invoke(program, programW);
  };
}

/** A context's Error is not a host `Error`: read its message by shape. */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

function timedOut(error: unknown, timeout: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') return error;
  return new Error(
    `the program ran for more than ${timeout} ms without waiting on a step (an endless loop?): stopped`,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: JSON from the context, checked by the engine's own calls
type Payload = any;

/** One call of the context's `w`, made on the engine's `w`. Callbacks resolve to nothing (the context keeps values). */
async function forward(
  w: Workflow,
  op: string,
  payload: Payload,
  fns: Callback[],
  settle: (fn: Callback) => Promise<void>,
): Promise<unknown> {
  const thunks = fns.map((fn) => () => settle(fn));
  switch (op) {
    case 'run': {
      const options = plainRunOptions(payload.options);
      return w.agent(payload.definition).run(String(payload.task), options);
    }
    case 'parallel':
      await w.parallel(...thunks);
      return undefined;
    case 'map': {
      const concurrency = typeof payload?.concurrency === 'number' ? payload.concurrency : undefined;
      await w.map(thunks, (thunk) => thunk(), concurrency !== undefined ? { concurrency } : {});
      return undefined;
    }
    case 'stage':
      await w.stage(String(payload.name), thunks[0] ?? (async () => {}));
      return undefined;
    case 'dag': {
      const nodes: Record<string, DagNode> = {};
      for (const [i, node] of (payload as Array<{ name: string; after: string[] }>).entries()) {
        const thunk = thunks[i] ?? (async () => {});
        nodes[node.name] = { after: node.after, run: () => thunk() };
      }
      await w.dag(nodes);
      return undefined;
    }
    case 'sync':
      return w.sync(payload.point, String(payload.command));
    default:
      throw new Error(`unknown workflow call ${op}`);
  }
}

/** Only the options a lead's program may give (no `output`: zod does not cross into the context). */
function plainRunOptions(options: Payload): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ['timeout', 'retries', 'priority', 'budget', 'key'])
    if (options?.[name] !== undefined) out[name] = options[name];
  return out;
}
