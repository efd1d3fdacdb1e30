/** OpenAI Chat Completions (and compatible servers: Moonshot, DeepSeek, Ollama, vLLM, llama.cpp). */
import { postJson, type ReadResult, readSse, type StreamAccumulator } from '../http.js';
import { DEFAULT_BASE_URLS } from '../models.js';
import type {
  CallOptions,
  Message,
  ModelRecord,
  ModelRequest,
  ModelResult,
  Provider,
  StopReason,
} from '../types.js';
import { openaiChatUsage } from '../usage/openai-chat-usage.js';
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

export function createOpenAIChatProvider(model: ModelRecord, options: ProviderOptions = {}): Provider {
  const base = options.baseUrl ?? model.baseUrl ?? DEFAULT_BASE_URLS['openai-chat'];
  const url = endpoint(base, 'chat/completions');
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  // OpenAI's own reasoning models reject `max_tokens`; compatible servers mostly only know it.
  const maxField = url.hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
  const target = { url, headers };
  const readWhole = jsonReader(decodeChatResponse);

  return {
    model,
    async call(request: ModelRequest, call: CallOptions = {}): Promise<ModelResult> {
      const stream = request.stream === true;
      const body = JSON.stringify(chatRequestBody(model, request, maxField, stream));
      const read = stream ? readSse(() => chatStreamAccumulator(call.onText)) : readWhole;
      const result = await postJson(target, body, read, httpOptions(options, call));
      if (!result.ok) return result;
      // A whole (non-streamed) answer is still shown to a live display, in one piece.
      if (!stream && result.value.text !== '') call.onText?.(result.value.text);
      return { ok: true, turn: priceTurn(result.value, model) };
    },
  };
}

export function chatRequestBody(
  model: ModelRecord,
  request: ModelRequest,
  maxField: 'max_tokens' | 'max_completion_tokens',
  stream: boolean,
): Record<string, unknown> {
  const messages: unknown[] = [];
  if (request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const m of request.messages) messages.push(chatMessage(m));
  const body: Record<string, unknown> = { model: model.name, messages };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  body[maxField] = request.maxOutput ?? model.maxOutput;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function chatMessage(m: Message): unknown {
  switch (m.role) {
    case 'user':
      return { role: 'user', content: m.content };
    case 'assistant':
      if (m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}

export function chatStopReason(reason: unknown): StopReason {
  switch (reason) {
    case 'stop':
      return 'end';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'max_tokens';
    default:
      return 'other';
  }
}

export function decodeChatResponse(body: unknown): ReadResult<RawTurn> {
  if (!isRecord(body)) return malformed('chat completion is not an object');
  if (body.error !== undefined) return { ok: false, error: inBandError(body.error) };
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message))
    return malformed('chat completion has no choices[0].message');
  const message = choice.message;
  const toolCalls = [];
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (!Array.isArray(message.tool_calls)) return malformed('message.tool_calls is not an array');
    for (const c of message.tool_calls) {
      const fn = isRecord(c) ? c.function : undefined;
      if (!isRecord(c) || !isRecord(fn) || typeof fn.name !== 'string') {
        return malformed('a tool call has no function name');
      }
      toolCalls.push({ id: optString(c.id) ?? '', name: fn.name, arguments: rawArguments(fn.arguments) });
    }
  }
  const content = message.content;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    return malformed('message.content is not a string');
  }
  return {
    ok: true,
    value: {
      text: content ?? '',
      toolCalls,
      stopReason: chatStopReason(choice.finish_reason),
      usage: openaiChatUsage(body.usage) ?? ZERO_USAGE,
      model: optString(body.model),
      responseId: optString(body.id),
    },
  };
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/** Assembles streamed chunks: text deltas, tool-call deltas by index, finish reason, final usage. */
export function chatStreamAccumulator(onText?: (delta: string) => void): StreamAccumulator<RawTurn> {
  let text = '';
  const calls: PartialCall[] = [];
  let finish: unknown;
  let usage: unknown;
  let model: string | undefined;
  let id: string | undefined;
  let chunks = 0;
  return {
    event(ev) {
      if (ev.data === '[DONE]') return undefined;
      const parsed = parseEventData(ev.data);
      if (!parsed.ok) return parsed.error;
      const chunk = parsed.value;
      if (!isRecord(chunk)) return { kind: 'malformed', message: 'stream chunk is not an object' };
      if (chunk.error !== undefined) return inBandError(chunk.error);
      chunks++;
      id ??= optString(chunk.id);
      model ??= optString(chunk.model);
      if (isRecord(chunk.usage)) usage = chunk.usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (!isRecord(choice)) return undefined;
      if (choice.finish_reason !== undefined && choice.finish_reason !== null) finish = choice.finish_reason;
      const delta = choice.delta;
      if (!isRecord(delta)) return undefined;
      if (typeof delta.content === 'string' && delta.content !== '') {
        text += delta.content;
        onText?.(delta.content);
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const d of delta.tool_calls) {
          if (!isRecord(d)) return { kind: 'malformed', message: 'tool call delta is not an object' };
          const index = typeof d.index === 'number' ? d.index : calls.length;
          let call = calls[index];
          if (!call) {
            call = { id: '', name: '', args: '' };
            calls[index] = call;
          }
          if (typeof d.id === 'string' && d.id !== '') call.id = d.id;
          const fn = d.function;
          if (isRecord(fn)) {
            if (typeof fn.name === 'string') call.name += fn.name;
            if (typeof fn.arguments === 'string') call.args += fn.arguments;
          }
        }
      }
      return undefined;
    },
    finish() {
      if (chunks === 0) return malformed('stream ended without any chunk');
      const toolCalls = [];
      for (const c of calls) {
        if (!c) continue; // sparse indexes from odd servers
        if (c.name === '') return malformed('streamed tool call has no name');
        toolCalls.push({ id: c.id, name: c.name, arguments: c.args });
      }
      return {
        ok: true,
        value: {
          text,
          toolCalls,
          stopReason: chatStopReason(finish),
          usage: openaiChatUsage(usage) ?? ZERO_USAGE,
          model,
          responseId: id,
        },
      };
    },
  };
}
