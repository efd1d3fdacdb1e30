/**
 * Anthropic Messages API. Prompt caching: `cache_control: ephemeral` breakpoints on the last tool,
 * the system prompt, the last stable-prefix message (the task) and the last message (so each turn
 * reads the previous turn's prefix from cache). That is the API's limit of four breakpoints.
 */
import { postJson, type ReadResult, readSse, type StreamAccumulator } from '../http.js';
import { DEFAULT_BASE_URLS } from '../models.js';
import type {
  CallOptions,
  ModelRecord,
  ModelRequest,
  ModelResult,
  Provider,
  StopReason,
  ToolCall,
} from '../types.js';
import { anthropicUsage } from '../usage/anthropic-usage.js';
import {
  endpoint,
  httpOptions,
  inBandError,
  isRecord,
  jsonReader,
  malformed,
  optString,
  type ProviderOptions,
  parseEventData,
  priceTurn,
  type RawTurn,
  ZERO_USAGE,
} from './shared.js';

export const ANTHROPIC_VERSION = '2023-06-01';
const EPHEMERAL = { type: 'ephemeral' } as const;

export function createAnthropicProvider(model: ModelRecord, options: ProviderOptions = {}): Provider {
  const base = options.baseUrl ?? model.baseUrl ?? DEFAULT_BASE_URLS.anthropic;
  // ANTHROPIC_BASE_URL is conventionally the host without /v1; accept both forms.
  const url = endpoint(base, /\/v1\/?$/.test(base) ? 'messages' : 'v1/messages');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  const target = { url, headers };
  const readWhole = jsonReader(decodeAnthropicResponse);

  return {
    model,
    async call(request: ModelRequest, call: CallOptions = {}): Promise<ModelResult> {
      const stream = request.stream === true;
      const body = JSON.stringify(anthropicRequestBody(model, request, stream));
      const read = stream ? readSse(() => anthropicStreamAccumulator(call.onText)) : readWhole;
      const result = await postJson(target, body, read, httpOptions(options, call));
      if (!result.ok) return result;
      // A whole (non-streamed) answer is still shown to a live display, in one piece.
      if (!stream && result.value.text !== '') call.onText?.(result.value.text);
      return { ok: true, turn: priceTurn(result.value, model) };
    },
  };
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

export function anthropicRequestBody(
  model: ModelRecord,
  request: ModelRequest,
  stream: boolean,
): Record<string, unknown> {
  const messages: WireMessage[] = [];
  const push = (role: WireMessage['role'], blocks: Block[]): void => {
    const last = messages[messages.length - 1];
    // Tool results and a following user message share one user turn.
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  const prefixEnd = (request.stablePrefixMessages ?? 0) - 1;
  request.messages.forEach((m, i) => {
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content === '' ? '(empty)' : m.content }]);
    else if (m.role === 'tool') {
      const block: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content };
      if (m.isError) block.is_error = true;
      push('user', [block]);
    } else {
      const blocks: Block[] = [];
      if (m.content !== '') blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls)
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: toolInput(c) });
      if (blocks.length === 0) return; // the API rejects empty assistant turns
      push('assistant', blocks);
    }
    if (i === prefixEnd) markLast(messages);
  });
  markLast(messages);

  const body: Record<string, unknown> = {
    model: model.name,
    max_tokens: request.maxOutput ?? model.maxOutput,
    messages,
  };
  if (request.system !== '') body.system = [{ type: 'text', text: request.system, cache_control: EPHEMERAL }];
  if (request.tools.length > 0) {
    const last = request.tools.length - 1;
    body.tools = request.tools.map((t, i) => {
      const tool: Block = { name: t.name, description: t.description, input_schema: t.parameters };
      if (i === last) tool.cache_control = EPHEMERAL;
      return tool;
    });
  }
  if (stream) body.stream = true;
  return body;
}

function markLast(messages: WireMessage[]): void {
  const content = messages[messages.length - 1]?.content;
  const block = content?.[content.length - 1];
  if (block) block.cache_control = EPHEMERAL;
}

/** Anthropic wants an object; raw text that is not a JSON object is passed under `_raw`. */
function toolInput(call: ToolCall): unknown {
  try {
    const parsed: unknown = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
    if (isRecord(parsed)) return parsed;
  } catch {
    // fall through
  }
  return { _raw: call.arguments };
}

export function anthropicStopReason(reason: unknown): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'max_tokens';
    default:
      return 'other';
  }
}

export function decodeAnthropicResponse(body: unknown): ReadResult<RawTurn> {
  if (!isRecord(body)) return malformed('message is not an object');
  if (body.type === 'error') return { ok: false, error: inBandError(body.error) };
  if (!Array.isArray(body.content)) return malformed('message has no content array');
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of body.content) {
    if (!isRecord(block)) return malformed('a content block is not an object');
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'tool_use') {
      if (typeof block.name !== 'string' || typeof block.id !== 'string')
        return malformed('tool_use without id/name');
      toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
  }
  return {
    ok: true,
    value: {
      text,
      toolCalls,
      stopReason: anthropicStopReason(body.stop_reason),
      usage: anthropicUsage(body.usage) ?? ZERO_USAGE,
      model: optString(body.model),
      responseId: optString(body.id),
    },
  };
}

interface StreamBlock {
  type: string;
  text: string;
  id: string;
  name: string;
  json: string;
}

export function anthropicStreamAccumulator(onText?: (delta: string) => void): StreamAccumulator<RawTurn> {
  const blocks: StreamBlock[] = [];
  let usage: Record<string, unknown> = {};
  let stop: unknown;
  let id: string | undefined;
  let model: string | undefined;
  let started = false;
  let stopped = false;
  return {
    event(ev) {
      const parsed = parseEventData(ev.data);
      if (!parsed.ok) return parsed.error;
      const data = parsed.value;
      if (!isRecord(data)) return { kind: 'malformed', message: 'stream event is not an object' };
      switch (data.type ?? ev.event) {
        case 'message_start': {
          const message = isRecord(data.message) ? data.message : {};
          started = true;
          id = optString(message.id);
          model = optString(message.model);
          if (isRecord(message.usage)) usage = { ...message.usage };
          return undefined;
        }
        case 'content_block_start': {
          const cb = isRecord(data.content_block) ? data.content_block : {};
          const index = typeof data.index === 'number' ? data.index : blocks.length;
          const text = optString(cb.text) ?? '';
          blocks[index] = {
            type: optString(cb.type) ?? '',
            text,
            id: optString(cb.id) ?? '',
            name: optString(cb.name) ?? '',
            json: '',
          };
          if (text !== '') onText?.(text);
          return undefined;
        }
        case 'content_block_delta': {
          const block = typeof data.index === 'number' ? blocks[data.index] : undefined;
          const delta = isRecord(data.delta) ? data.delta : {};
          if (!block) return { kind: 'malformed', message: 'delta for a block that was not started' };
          if (delta.type === 'text_delta' && typeof delta.text === 'string') {
            block.text += delta.text;
            onText?.(delta.text);
          } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
            block.json += delta.partial_json;
          }
          return undefined;
        }
        case 'message_delta': {
          if (isRecord(data.delta) && data.delta.stop_reason !== undefined) stop = data.delta.stop_reason;
          // message_delta usage is cumulative; fields it omits keep their message_start values.
          if (isRecord(data.usage)) {
            for (const [k, v] of Object.entries(data.usage)) if (v !== null && v !== undefined) usage[k] = v;
          }
          return undefined;
        }
        case 'message_stop':
          stopped = true;
          return undefined;
        case 'error':
          return inBandError(data.error);
        default:
          return undefined; // ping, content_block_stop, future events
      }
    },
    finish() {
      if (!started || !stopped) return malformed('stream ended without message_start/message_stop');
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const b of blocks) {
        if (!b) continue;
        if (b.type === 'text') text += b.text;
        else if (b.type === 'tool_use')
          toolCalls.push({ id: b.id, name: b.name, arguments: b.json === '' ? '{}' : b.json });
      }
      return {
        ok: true,
        value: {
          text,
          toolCalls,
          stopReason: anthropicStopReason(stop),
          usage: anthropicUsage(usage) ?? ZERO_USAGE,
          model,
          responseId: id,
        },
      };
    },
  };
}
