/**
 * The three wire protocols an external agent CLI speaks, as the proxy needs them: which paths are
 * whose, where the upstream request goes and how it is authenticated, how the request is adjusted
 * (the model is the run's, not the client's), how the answer is read for metering (the providers'
 * own decoders and stream accumulators) and what an error looks like to that protocol's clients.
 */
import type { ReadResult, StreamAccumulator } from '../model/http.js';
import {
  ANTHROPIC_VERSION,
  anthropicStreamAccumulator,
  decodeAnthropicResponse,
} from '../model/providers/anthropic.js';
import { chatStreamAccumulator, decodeChatResponse } from '../model/providers/openai-chat.js';
import { decodeResponsesResponse, responsesStreamAccumulator } from '../model/providers/openai-responses.js';
import { endpoint, isRecord, type RawTurn } from '../model/providers/shared.js';
import { namespacedAccumulator, namespacedDecode } from './namespaced-calls.js';

export type WireProtocol = 'anthropic' | 'openai-chat' | 'openai-responses';

export interface Wire {
  protocol: WireProtocol;
  /** The client's request, for error messages: `POST /v1/messages`. */
  route: string;
  /** The upstream URL for a model's base URL (query string added by the caller). */
  url(baseUrl: string): URL;
  /** The upstream's authentication headers with the real key. */
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /** Client headers passed on upstream, lower case (their values as allow-list.ts admits them). */
  forwardedHeaders: readonly string[];
  /** Headers the upstream needs when the client did not send them. */
  defaultHeaders: Record<string, string>;
  /** Rewrites the parsed request body in place for the upstream: the model, usage in streams. */
  prepare(body: Record<string, unknown>, modelName: string): void;
  /** Messages (or input items) the request holds: `requestMessages` of `model.response`. */
  requestMessages(body: Record<string, unknown>): number;
  decode(body: unknown): ReadResult<RawTurn>;
  accumulator(): StreamAccumulator<RawTurn>;
  /** An error response body in the protocol's own shape. */
  errorBody(status: number, message: string): unknown;
  /** An error as a stream event, for a stream that cannot be finished (cut, timed out). */
  streamError(message: string): string;
}

const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function openaiError(status: number): { type: string; code: string | null } {
  switch (status) {
    case 401:
      return { type: 'invalid_request_error', code: 'invalid_api_key' };
    case 402:
      return { type: 'insufficient_quota', code: 'budget_exhausted' };
    case 403:
      return { type: 'permission_error', code: null };
    case 404:
      return { type: 'invalid_request_error', code: 'not_found' };
    case 429:
      return { type: 'rate_limit_error', code: 'rate_limit_exceeded' };
    default:
      return status >= 500
        ? { type: 'server_error', code: null }
        : { type: 'invalid_request_error', code: null };
  }
}

function openaiErrorBody(status: number, message: string): unknown {
  return { error: { message, ...openaiError(status), param: null } };
}

const header = (name: string, value: string | undefined): Record<string, string> =>
  value ? { [name]: value } : {};

const countOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

const ANTHROPIC: Wire = {
  protocol: 'anthropic',
  route: 'POST /v1/messages',
  // ANTHROPIC_BASE_URL is conventionally the host without /v1; accept both forms (as the provider).
  url: (base) => endpoint(base, /\/v1\/?$/.test(base) ? 'messages' : 'v1/messages'),
  authHeaders: (apiKey) => header('x-api-key', apiKey),
  forwardedHeaders: ['anthropic-version', 'anthropic-beta'],
  defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
  prepare(body, modelName) {
    body.model = modelName;
  },
  requestMessages: (body) => countOf(body.messages),
  decode: decodeAnthropicResponse,
  accumulator: () => anthropicStreamAccumulator(),
  errorBody: (status, message) => ({ type: 'error', error: { type: anthropicErrorType(status), message } }),
  streamError: (message) => sse({ type: 'error', error: { type: 'api_error', message } }, 'error'),
};

const OPENAI_CHAT: Wire = {
  protocol: 'openai-chat',
  route: 'POST /v1/chat/completions',
  url: (base) => endpoint(base, 'chat/completions'),
  authHeaders: (apiKey) => header('authorization', apiKey && `Bearer ${apiKey}`),
  forwardedHeaders: [],
  defaultHeaders: {},
  prepare(body, modelName) {
    body.model = modelName;
    // Usage in a stream only comes when asked for; the proxy always asks (one extra chunk with
    // `choices: []` at the end, which clients of the API handle).
    if (body.stream === true) {
      const options = isRecord(body.stream_options) ? body.stream_options : {};
      body.stream_options = { ...options, include_usage: true };
    }
  },
  requestMessages: (body) => countOf(body.messages),
  decode: decodeChatResponse,
  accumulator: () => chatStreamAccumulator(),
  errorBody: openaiErrorBody,
  streamError: (message) => sse(openaiErrorBody(502, message)),
};

const OPENAI_RESPONSES: Wire = {
  protocol: 'openai-responses',
  route: 'POST /v1/responses',
  url: (base) => endpoint(base, 'responses'),
  authHeaders: (apiKey) => header('authorization', apiKey && `Bearer ${apiKey}`),
  forwardedHeaders: [],
  defaultHeaders: {},
  prepare(body, modelName) {
    body.model = modelName;
  },
  requestMessages: (body) => (typeof body.input === 'string' ? 1 : countOf(body.input)),
  // Codex's namespaced MCP tools are logged as `<namespace>__<name>` (namespaced-calls.ts).
  decode: namespacedDecode(decodeResponsesResponse),
  accumulator: () => namespacedAccumulator(responsesStreamAccumulator()),
  errorBody: openaiErrorBody,
  // The Responses stream's own terminal failure event (what Codex and the SDK's helpers read).
  streamError: (message) =>
    sse(
      {
        type: 'response.failed',
        response: { object: 'response', status: 'failed', error: { code: 'server_error', message } },
      },
      'response.failed',
    ),
};

const ROUTES: ReadonlyArray<[string, Wire]> = [
  ['/messages', ANTHROPIC],
  ['/chat/completions', OPENAI_CHAT],
  ['/responses', OPENAI_RESPONSES],
];

/**
 * The protocol of a request path below the mount point: `/v1/messages` or `/messages` (Anthropic),
 * `…/chat/completions`, `…/responses`; null for anything else.
 */
export function wireOf(path: string): Wire | null {
  const trimmed = path.replace(/\/+$/, '');
  const rest = trimmed.startsWith('/v1/') ? trimmed.slice(3) : trimmed;
  for (const [suffix, wire] of ROUTES) if (rest === suffix) return wire;
  return null;
}

/** The error shape for a path that is no protocol's: Anthropic's below `/v1/messages`, else OpenAI's. */
export function fallbackWire(path: string): Wire {
  return /^(\/v1)?\/messages\//.test(path) ? ANTHROPIC : OPENAI_CHAT;
}
