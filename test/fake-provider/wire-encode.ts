/** Encodes a neutral ModelTurn in each protocol's wire format, whole or as SSE events. */
import type { ModelTurn, StopReason, Usage } from '../../src/model/types.js';
import type { Namespaced } from './wire-decode.js';

export interface Encoded {
  /** Whole JSON response body. */
  json(): unknown;
  /** SSE frames (already `event:`/`data:` formatted) for a streamed response. */
  frames(options: { includeUsage: boolean }): string[];
}

const now = (): number => Math.floor(Date.now() / 1000);
const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** Splits text into up to `n` pieces so streams carry several deltas. */
function pieces(text: string, n = 3): string[] {
  if (text.length <= 1) return text === '' ? [] : [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function chatUsage(u: Usage): Record<string, unknown> {
  const prompt = u.input + (u.cachedInput ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cachedInput ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0, audio_tokens: 0 },
  };
}

function chatFinish(stop: StopReason): string {
  return stop === 'end'
    ? 'stop'
    : stop === 'tool_calls'
      ? 'tool_calls'
      : stop === 'max_tokens'
        ? 'length'
        : 'content_filter';
}

export function encodeChat(turn: ModelTurn, id: string): Encoded {
  const created = now();
  const toolCalls = turn.toolCalls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return {
    json: () => ({
      id,
      object: 'chat.completion',
      created,
      model: turn.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.text === '' && toolCalls.length > 0 ? null : turn.text,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: chatFinish(turn.stopReason),
        },
      ],
      usage: chatUsage(turn.usage),
    }),
    frames: ({ includeUsage }) => {
      const head = { id, object: 'chat.completion.chunk', created, model: turn.model };
      const chunk = (delta: unknown, finish: string | null = null): string =>
        sse({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
      const out = [chunk({ role: 'assistant', content: '' })];
      for (const p of pieces(turn.text)) out.push(chunk({ content: p }));
      turn.toolCalls.forEach((c, index) => {
        out.push(
          chunk({
            tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
          }),
        );
        for (const p of pieces(c.arguments, 2))
          out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
      });
      out.push(chunk({}, chatFinish(turn.stopReason)));
      if (includeUsage) out.push(sse({ ...head, choices: [], usage: chatUsage(turn.usage) }));
      out.push(sse('[DONE]'));
      return out;
    },
  };
}

/** `namespaced`: the request's namespaced tools (a call of one names its namespace, as Codex expects). */
export function encodeResponses(turn: ModelTurn, id: string, namespaced?: Namespaced): Encoded {
  const created = now();
  const output: Record<string, unknown>[] = [];
  if (turn.text !== '') {
    output.push({
      type: 'message',
      id: `msg_${id}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }],
    });
  }
  turn.toolCalls.forEach((c, i) => {
    const inNamespace = namespaced?.[c.name];
    output.push({
      type: 'function_call',
      id: `fc_${id}_${i}`,
      call_id: c.id,
      ...(inNamespace ? { namespace: inNamespace.namespace, name: inNamespace.name } : { name: c.name }),
      arguments: c.arguments,
      status: 'completed',
    });
  });
  const incomplete = turn.stopReason === 'max_tokens' || turn.stopReason === 'other';
  const u = turn.usage;
  const input = u.input + (u.cachedInput ?? 0);
  const response = (status: string, items: unknown[], withUsage: boolean): Record<string, unknown> => ({
    id,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details:
      status === 'incomplete'
        ? { reason: turn.stopReason === 'max_tokens' ? 'max_output_tokens' : 'content_filter' }
        : null,
    model: turn.model,
    output: items,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: withUsage
      ? {
          input_tokens: input,
          input_tokens_details: { cached_tokens: u.cachedInput ?? 0 },
          output_tokens: u.output,
          output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
          total_tokens: input + u.output,
        }
      : null,
  });
  const finalStatus = incomplete ? 'incomplete' : 'completed';
  return {
    json: () => response(finalStatus, output, true),
    frames: () => {
      let seq = 0;
      const ev = (type: string, data: Record<string, unknown>): string =>
        sse({ type, sequence_number: seq++, ...data }, type);
      const out = [ev('response.created', { response: response('in_progress', [], false) })];
      output.forEach((item, outputIndex) => {
        if (item.type === 'message') {
          out.push(
            ev('response.output_item.added', {
              output_index: outputIndex,
              item: { ...item, status: 'in_progress', content: [] },
            }),
          );
          const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
          const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
          out.push(ev('response.content_part.added', { ...at, part }));
          for (const delta of pieces(turn.text)) {
            out.push(
              ev('response.output_text.delta', {
                item_id: item.id,
                output_index: outputIndex,
                content_index: 0,
                delta,
                logprobs: [],
              }),
            );
          }
          out.push(
            ev('response.output_text.done', {
              item_id: item.id,
              output_index: outputIndex,
              content_index: 0,
              text: turn.text,
              logprobs: [],
            }),
          );
          out.push(ev('response.content_part.done', { ...at, part: { ...part, text: turn.text } }));
        } else {
          out.push(
            ev('response.output_item.added', {
              output_index: outputIndex,
              item: { ...item, status: 'in_progress', arguments: '' },
            }),
          );
          for (const delta of pieces(String(item.arguments), 2)) {
            out.push(
              ev('response.function_call_arguments.delta', {
                item_id: item.id,
                output_index: outputIndex,
                delta,
              }),
            );
          }
          out.push(
            ev('response.function_call_arguments.done', {
              item_id: item.id,
              output_index: outputIndex,
              arguments: item.arguments,
            }),
          );
        }
        out.push(ev('response.output_item.done', { output_index: outputIndex, item }));
      });
      out.push(ev(`response.${finalStatus}`, { response: response(finalStatus, output, true) }));
      return out;
    },
  };
}

function anthropicStop(stop: StopReason): string {
  return stop === 'end'
    ? 'end_turn'
    : stop === 'tool_calls'
      ? 'tool_use'
      : stop === 'max_tokens'
        ? 'max_tokens'
        : 'refusal';
}

/** Anthropic tool input must be an object; raw text that is not one travels under `_raw`. */
function toolInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args === '' ? '{}' : args);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { _raw: args };
}

export function encodeAnthropic(turn: ModelTurn, id: string): Encoded {
  const u = turn.usage;
  const usage = {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cachedInput ?? 0,
    output_tokens: u.output,
  };
  const content: Record<string, unknown>[] = [];
  if (turn.text !== '') content.push({ type: 'text', text: turn.text });
  for (const c of turn.toolCalls)
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: toolInput(c.arguments) });
  const message = (blocks: unknown[], stop: string | null, usageOut: unknown): Record<string, unknown> => ({
    id,
    type: 'message',
    role: 'assistant',
    model: turn.model,
    content: blocks,
    stop_reason: stop,
    stop_sequence: null,
    usage: usageOut,
  });
  return {
    json: () => message(content, anthropicStop(turn.stopReason), usage),
    frames: () => {
      const ev = (type: string, data: Record<string, unknown>): string => sse({ type, ...data }, type);
      const out = [
        ev('message_start', { message: message([], null, { ...usage, output_tokens: 1 }) }),
        ev('ping', {}),
      ];
      content.forEach((block, index) => {
        if (block.type === 'text') {
          out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
          for (const text of pieces(turn.text))
            out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text } }));
        } else {
          out.push(ev('content_block_start', { index, content_block: { ...block, input: {} } }));
          for (const partial_json of pieces(JSON.stringify(block.input), 2)) {
            out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
          }
        }
        out.push(ev('content_block_stop', { index }));
      });
      out.push(
        ev('message_delta', {
          delta: { stop_reason: anthropicStop(turn.stopReason), stop_sequence: null },
          usage: { output_tokens: u.output },
        }),
      );
      out.push(ev('message_stop', {}));
      return out;
    },
  };
}
