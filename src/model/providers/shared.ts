/** Pieces every wire provider shares: options, URL joining, turn finishing, shape checks. */
import { type BodyReader, type HttpError, type HttpOptions, type ReadResult, readJson } from '../http.js';
import { costOf } from '../pricing.js';
import type { CallOptions, ModelRecord, ModelTurn, StopReason, ToolCall, Usage } from '../types.js';

export interface ProviderOptions {
  apiKey?: string;
  /** Overrides the model record's base URL. */
  baseUrl?: string;
  timeoutMs?: number;
  maxRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** A decoded turn before pricing: cost is computed once, in `priceTurn`. */
export interface RawTurn {
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
  model: string | undefined;
  responseId: string | undefined;
}

export const ZERO_USAGE: Usage = {
  input: 0,
  cachedInput: undefined,
  cacheWrite: undefined,
  output: 0,
  reasoning: undefined,
};

export function priceTurn(raw: RawTurn, model: ModelRecord): ModelTurn {
  // A model that answered with tool calls wants them run, whatever finish reason the server gave.
  const stopReason = raw.toolCalls.length > 0 && raw.stopReason === 'end' ? 'tool_calls' : raw.stopReason;
  // Some compatible servers omit tool-call ids; the agent loop needs one to pair results.
  const toolCalls = raw.toolCalls.map((c, i) => (c.id === '' ? { ...c, id: `call_${i}` } : c));
  const turn: ModelTurn = {
    text: raw.text,
    toolCalls,
    stopReason,
    usage: raw.usage,
    costUsd: costOf(raw.usage, model.prices),
    model: raw.model ?? model.name,
  };
  if (raw.responseId !== undefined) turn.responseId = raw.responseId;
  return turn;
}

export function httpOptions(provider: ProviderOptions, call: CallOptions): HttpOptions {
  const out: HttpOptions = {};
  if (provider.timeoutMs !== undefined) out.timeoutMs = provider.timeoutMs;
  if (provider.maxRetries !== undefined) out.maxRetries = provider.maxRetries;
  if (provider.baseDelayMs !== undefined) out.baseDelayMs = provider.baseDelayMs;
  if (provider.maxDelayMs !== undefined) out.maxDelayMs = provider.maxDelayMs;
  if (call.signal) out.signal = call.signal;
  if (call.onRetry) out.onRetry = call.onRetry;
  return out;
}

/** `base` + `path` with exactly one slash between them. */
export function endpoint(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
}

/** A non-stream reader: whole body as JSON, then the protocol's decoder. */
export function jsonReader(decode: (body: unknown) => ReadResult<RawTurn>): BodyReader<RawTurn> {
  return async (res) => {
    const json = await readJson(res);
    return json.ok ? decode(json.value) : json;
  };
}

export function malformed(message: string): { ok: false; error: HttpError } {
  return { ok: false, error: { kind: 'malformed', message } };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function optString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Tool arguments stay raw text; a server that sends an object gets it serialised once. */
export function rawArguments(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

/** Parses a JSON data payload of a stream event. */
export function parseEventData(data: string): ReadResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(data) as unknown };
  } catch {
    return malformed(`stream event is not JSON: ${data.slice(0, 200)}`);
  }
}

/** An error object sent inside a 200 stream (or body): overloaded/server errors are retryable. */
export function inBandError(error: unknown): HttpError {
  const message = isRecord(error) ? (optString(error.message) ?? JSON.stringify(error)) : String(error);
  const type = isRecord(error) ? `${optString(error.type) ?? ''} ${optString(error.code) ?? ''}` : '';
  const kind: HttpError['kind'] = /rate_limit/.test(type)
    ? 'rate_limit'
    : /authentication|permission/.test(type)
      ? 'auth'
      : /invalid_request/.test(type)
        ? 'bad_request'
        : 'server';
  return { kind, message: `provider error: ${message}` };
}
