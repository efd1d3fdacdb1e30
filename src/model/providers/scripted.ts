/**
 * The scripted model: a fixed sequence of turns (failing loudly on an unexpected or unconsumed call)
 * or a policy function of the request. Used by tests, demos and the fake provider server.
 */
import { KNOWN_MODELS } from '../models.js';
import { costOf } from '../pricing.js';
import type {
  CallOptions,
  ModelRecord,
  ModelRequest,
  ModelResult,
  ModelTurn,
  Provider,
  StopReason,
  ToolCall,
  ToolSpec,
  Usage,
} from '../types.js';
import { createPromptCache } from './prompt-cache.js';

export interface ScriptedTurn {
  text?: string;
  /** `arguments`: an object is JSON.stringify'd, a string is sent raw (so invalid JSON can be scripted). */
  toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
  /** Fields not given are estimated (chars / 4) from the request and the turn. */
  usage?: Partial<Usage>;
  /** Default: 'tool_calls' when there are tool calls, else 'end'. */
  stopReason?: StopReason;
}

export type ScriptedPolicy = (
  request: ModelRequest,
  callIndex: number,
) => ScriptedTurn | Promise<ScriptedTurn>;

export type ScriptedProvider = Provider & {
  calls(): number;
  remaining(): number | null;
  assertConsumed(): void;
};

const SCRIPTED_MODEL: ModelRecord = KNOWN_MODELS.find((m) => m.id === 'scripted')!;

export function createScriptedProvider(
  source: ScriptedTurn[] | ScriptedPolicy,
  options: { model?: ModelRecord; latencyMs?: number; promptCache?: boolean } = {},
): ScriptedProvider {
  const model = options.model ?? SCRIPTED_MODEL;
  // Simulated provider prefix caching (demos, benchmarks): cached input reported like a provider would.
  const cache = options.promptCache ? createPromptCache() : null;
  const script = Array.isArray(source) ? source : undefined;
  let count = 0;

  const next = async (request: ModelRequest, index: number): Promise<ScriptedTurn | string> => {
    if (script) {
      const turn = script[index];
      if (turn) return turn;
      const last = request.messages[request.messages.length - 1];
      const lastText = last ? `${last.role}: ${last.content.slice(0, 200)}` : '(no messages)';
      return `scripted model: unexpected call #${index + 1}, the script has only ${script.length} turn(s); last message was ${lastText}`;
    }
    try {
      return await (source as ScriptedPolicy)(request, index);
    } catch (err) {
      return `scripted policy failed on call #${index + 1}: ${err instanceof Error ? err.message : String(err)}`;
    }
  };

  return {
    model,
    async call(request: ModelRequest, call: CallOptions = {}): Promise<ModelResult> {
      const index = count++;
      if (call.signal?.aborted)
        return { ok: false, error: { kind: 'aborted', message: 'the call was aborted', attempts: 0 } };
      if (options.latencyMs && !(await delay(options.latencyMs, call.signal))) {
        return { ok: false, error: { kind: 'aborted', message: 'the call was aborted', attempts: 1 } };
      }
      // Like a real HTTP call, a pending policy (e.g. one that models a hung model) ends on abort.
      const turn = await untilAborted(next(request, index), call.signal);
      if (turn === null)
        return { ok: false, error: { kind: 'aborted', message: 'the call was aborted', attempts: 1 } };
      if (typeof turn === 'string')
        return { ok: false, error: { kind: 'script', message: turn, attempts: 1 } };
      const cached = cache && turn.usage?.cachedInput === undefined ? cache.cachedTokens(request) : 0;
      const withCache = cached > 0 ? { ...turn, usage: { ...turn.usage, cachedInput: cached } } : turn;
      const modelTurn = scriptedTurnToModelTurn(withCache, request, index, model);
      if (modelTurn.text !== '') call.onText?.(modelTurn.text);
      return { ok: true, turn: modelTurn };
    },
    calls: () => count,
    remaining: () => (script ? Math.max(0, script.length - count) : null),
    assertConsumed(): void {
      if (script && count < script.length) {
        throw new Error(
          `scripted model: ${script.length - count} of ${script.length} turn(s) were never requested`,
        );
      }
    },
  };
}

/** Turns a scripted turn into a priced ModelTurn; shared with the fake provider server. */
export function scriptedTurnToModelTurn(
  turn: ScriptedTurn,
  request: ModelRequest,
  callIndex: number,
  model: ModelRecord,
): ModelTurn {
  const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${callIndex}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
  const text = turn.text ?? '';
  const usage = scriptedUsage(turn.usage ?? {}, request, text, toolCalls);
  return {
    text,
    toolCalls,
    stopReason: turn.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'end'),
    usage,
    costUsd: costOf(usage, model.prices),
    model: model.name,
    responseId: `scripted-${callIndex}`,
  };
}

function scriptedUsage(given: Partial<Usage>, request: ModelRequest, text: string, calls: ToolCall[]): Usage {
  const cachedInput = given.cachedInput ?? 0;
  const cacheWrite = given.cacheWrite ?? 0;
  let output = given.output;
  if (output === undefined) {
    let chars = text.length;
    for (const c of calls) chars += c.name.length + c.arguments.length;
    output = Math.ceil(chars / 4);
  }
  return {
    input: given.input ?? Math.max(0, estimateRequestTokens(request) - cachedInput - cacheWrite),
    cachedInput,
    cacheWrite,
    output,
    reasoning: given.reasoning ?? 0,
  };
}

/** Rough token count of a request (chars / 4), for real-looking numbers in demos. */
export function estimateRequestTokens(request: ModelRequest): number {
  let chars = request.system.length + toolChars(request.tools);
  for (const m of request.messages) {
    chars += m.content.length + 4;
    if (m.role === 'assistant') for (const c of m.toolCalls) chars += c.name.length + c.arguments.length;
  }
  return Math.ceil(chars / 4);
}

/** An agent's requests share one tools array (agent/loop.ts): its size is counted once. */
const toolCharsOf = new WeakMap<readonly ToolSpec[], number>();

function toolChars(tools: readonly ToolSpec[]): number {
  let chars = toolCharsOf.get(tools);
  if (chars === undefined) {
    chars = 0;
    for (const t of tools)
      chars += t.name.length + t.description.length + JSON.stringify(t.parameters).length;
    toolCharsOf.set(tools, chars);
  }
  return chars;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  if (!signal) return work;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
