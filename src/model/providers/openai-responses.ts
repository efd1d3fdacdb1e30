/** OpenAI Responses API (stateless: `store: false`, the whole conversation is sent each call). */
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
import { openaiResponsesUsage } from '../usage/openai-responses-usage.js';
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
  rawArguments,
  ZERO_USAGE,
} from './shared.js';

export function createOpenAIResponsesProvider(model: ModelRecord, options: ProviderOptions = {}): Provider {
  const base = options.baseUrl ?? model.baseUrl ?? DEFAULT_BASE_URLS['openai-responses'];
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const target = { url: endpoint(base, 'responses'), headers };
  const readWhole = jsonReader(decodeResponsesResponse);

  return {
    model,
    async call(request: ModelRequest, call: CallOptions = {}): Promise<ModelResult> {
      const stream = request.stream === true;
      const body = JSON.stringify(responsesRequestBody(model, request, stream));
      const read = stream ? readSse(() => responsesStreamAccumulator(call.onText)) : readWhole;
      const result = await postJson(target, body, read, httpOptions(options, call));
      if (!result.ok) return result;
      // A whole (non-streamed) answer is still shown to a live display, in one piece.
      if (!stream && result.value.text !== '') call.onText?.(result.value.text);
      return { ok: true, turn: priceTurn(result.value, model) };
    },
  };
}

export function responsesRequestBody(
  model: ModelRecord,
  request: ModelRequest,
  stream: boolean,
): Record<string, unknown> {
  const input: unknown[] = [];
  for (const m of request.messages) {
    if (m.role === 'user') input.push({ type: 'message', role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      if (m.content !== '') input.push({ type: 'message', role: 'assistant', content: m.content });
      for (const c of m.toolCalls) {
        input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments });
      }
    } else input.push({ type: 'function_call_output', call_id: m.toolCallId, output: m.content });
  }
  const body: Record<string, unknown> = { model: model.name, input, store: false };
  if (request.system !== '') body.instructions = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
  }
  body.max_output_tokens = request.maxOutput ?? model.maxOutput;
  if (stream) body.stream = true;
  return body;
}

export function decodeResponsesResponse(body: unknown): ReadResult<RawTurn> {
  if (!isRecord(body)) return malformed('response is not an object');
  if (isRecord(body.error)) return { ok: false, error: inBandError(body.error) };
  if (!Array.isArray(body.output)) return malformed('response has no output array');
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const item of body.output) {
    if (!isRecord(item)) return malformed('an output item is not an object');
    if (item.type === 'message') {
      if (!Array.isArray(item.content)) return malformed('output message has no content array');
      for (const part of item.content) {
        if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
      }
    } else if (item.type === 'function_call') {
      if (typeof item.name !== 'string') return malformed('function_call has no name');
      toolCalls.push({
        id: optString(item.call_id) ?? optString(item.id) ?? '',
        name: item.name,
        arguments: rawArguments(item.arguments),
      });
    }
    // reasoning and other item types carry nothing the neutral turn keeps.
  }
  return {
    ok: true,
    value: {
      text,
      toolCalls,
      stopReason: responsesStopReason(body, toolCalls.length > 0),
      usage: openaiResponsesUsage(body.usage) ?? ZERO_USAGE,
      model: optString(body.model),
      responseId: optString(body.id),
    },
  };
}

function responsesStopReason(body: Record<string, unknown>, hasCalls: boolean): StopReason {
  if (body.status === 'incomplete') {
    const reason = isRecord(body.incomplete_details) ? body.incomplete_details.reason : undefined;
    return reason === 'max_output_tokens' ? 'max_tokens' : 'other';
  }
  if (body.status === 'completed' || body.status === undefined) return hasCalls ? 'tool_calls' : 'end';
  return 'other';
}

/**
 * Streams text deltas to `onText`; the turn itself is decoded from the terminal event's full
 * response (`response.completed` / `response.incomplete`), which repeats every output item.
 */
export function responsesStreamAccumulator(onText?: (delta: string) => void): StreamAccumulator<RawTurn> {
  let final: unknown;
  return {
    event(ev) {
      if (ev.data === '[DONE]') return undefined;
      const parsed = parseEventData(ev.data);
      if (!parsed.ok) return parsed.error;
      const data = parsed.value;
      if (!isRecord(data)) return { kind: 'malformed', message: 'stream event is not an object' };
      const type = optString(data.type) ?? ev.event;
      if (type === 'response.output_text.delta' && typeof data.delta === 'string') onText?.(data.delta);
      else if (type === 'response.completed' || type === 'response.incomplete') final = data.response;
      else if (type === 'response.failed') {
        const response = isRecord(data.response) ? data.response : {};
        return inBandError(response.error ?? 'response failed');
      } else if (type === 'error') return inBandError(data);
      return undefined;
    },
    finish() {
      return final === undefined
        ? malformed('stream ended without response.completed')
        : decodeResponsesResponse(final);
    },
  };
}
