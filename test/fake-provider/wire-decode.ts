/** Parses each protocol's wire request back into a neutral ModelRequest (the inverse of the providers). */
import type { Message, ModelRequest, ToolCall, ToolSpec } from '../../src/model/types.js';

type Rec = Record<string, unknown>;
export type DecodeResult =
  | { ok: true; request: ModelRequest; namespaced?: Namespaced }
  | { ok: false; error: string };

/**
 * Responses tools grouped in a `namespace` tool (Codex puts each MCP server's tools in one:
 * `mcp__colony` holding `claim`, …) are flattened for policies as `<namespace>__<name>`
 * (`mcp__colony__claim`); this maps a flat name back for the answer's `function_call`.
 */
export type Namespaced = Record<string, { namespace: string; name: string }>;

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Text of a content field that is a string or an array of text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) if (isRec(part) && typeof part.text === 'string') out += part.text;
  return out;
}

function toolNameById(messages: Message[], id: string): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'assistant') for (const c of m.toolCalls) if (c.id === id) return c.name;
  }
  return '';
}

function withMax(request: ModelRequest, value: unknown): ModelRequest {
  if (typeof value === 'number') request.maxOutput = value;
  return request;
}

export function decodeChatRequest(body: unknown): DecodeResult {
  if (!isRec(body) || !Array.isArray(body.messages)) return { ok: false, error: 'messages must be an array' };
  let system = '';
  const messages: Message[] = [];
  for (const m of body.messages) {
    if (!isRec(m)) return { ok: false, error: 'a message is not an object' };
    if (m.role === 'system' || m.role === 'developer') system += textOf(m.content);
    else if (m.role === 'user') messages.push({ role: 'user', content: textOf(m.content) });
    else if (m.role === 'assistant') {
      const toolCalls: ToolCall[] = [];
      if (Array.isArray(m.tool_calls)) {
        for (const c of m.tool_calls) {
          const fn = isRec(c) && isRec(c.function) ? c.function : {};
          toolCalls.push({ id: str(isRec(c) ? c.id : ''), name: str(fn.name), arguments: str(fn.arguments) });
        }
      }
      messages.push({ role: 'assistant', content: textOf(m.content), toolCalls });
    } else if (m.role === 'tool') {
      const id = str(m.tool_call_id);
      messages.push({
        role: 'tool',
        toolCallId: id,
        name: toolNameById(messages, id),
        content: textOf(m.content),
        isError: false,
      });
    } else return { ok: false, error: `unknown role ${String(m.role)}` };
  }
  const tools: ToolSpec[] = [];
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      const fn = isRec(t) && isRec(t.function) ? t.function : {};
      tools.push({
        name: str(fn.name),
        description: str(fn.description),
        parameters: isRec(fn.parameters) ? fn.parameters : {},
      });
    }
  }
  const request: ModelRequest = { system, messages, tools, stream: body.stream === true };
  return { ok: true, request: withMax(request, body.max_completion_tokens ?? body.max_tokens) };
}

export function decodeResponsesRequest(body: unknown): DecodeResult {
  if (!isRec(body)) return { ok: false, error: 'body must be an object' };
  let system = str(body.instructions);
  const messages: Message[] = [];
  const input =
    typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
  if (!Array.isArray(input)) return { ok: false, error: 'input must be a string or an array' };
  for (const item of input) {
    if (!isRec(item)) return { ok: false, error: 'an input item is not an object' };
    const type = item.type ?? 'message';
    if (type === 'message') {
      if (item.role === 'system' || item.role === 'developer') system += textOf(item.content);
      else if (item.role === 'user') messages.push({ role: 'user', content: textOf(item.content) });
      else if (item.role === 'assistant')
        messages.push({ role: 'assistant', content: textOf(item.content), toolCalls: [] });
    } else if (type === 'function_call') {
      const name =
        typeof item.namespace === 'string' ? `${item.namespace}__${str(item.name)}` : str(item.name);
      const call = { id: str(item.call_id), name, arguments: str(item.arguments) };
      const last = messages[messages.length - 1];
      if (last?.role === 'assistant') last.toolCalls.push(call);
      else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
    } else if (type === 'function_call_output') {
      const id = str(item.call_id);
      messages.push({
        role: 'tool',
        toolCallId: id,
        name: toolNameById(messages, id),
        content: textOf(item.output),
        isError: false,
      });
    }
  }
  const tools: ToolSpec[] = [];
  const namespaced: Namespaced = {};
  const addFunction = (t: Rec, namespace?: string): void => {
    const name = namespace === undefined ? str(t.name) : `${namespace}__${str(t.name)}`;
    if (namespace !== undefined) namespaced[name] = { namespace, name: str(t.name) };
    tools.push({
      name,
      description: str(t.description),
      parameters: isRec(t.parameters) ? t.parameters : {},
    });
  };
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      if (isRec(t) && t.type === 'function') addFunction(t);
      else if (isRec(t) && t.type === 'namespace' && Array.isArray(t.tools))
        for (const inner of t.tools)
          if (isRec(inner) && inner.type === 'function') addFunction(inner, str(t.name));
    }
  }
  const request: ModelRequest = { system, messages, tools, stream: body.stream === true };
  return {
    ok: true,
    request: withMax(request, body.max_output_tokens),
    ...(Object.keys(namespaced).length > 0 ? { namespaced } : {}),
  };
}

export function decodeAnthropicRequest(body: unknown): DecodeResult {
  if (!isRec(body) || !Array.isArray(body.messages)) return { ok: false, error: 'messages: field required' };
  if (typeof body.max_tokens !== 'number') return { ok: false, error: 'max_tokens: field required' };
  const messages: Message[] = [];
  let prefix: number | undefined;
  for (const m of body.messages) {
    if (!isRec(m)) return { ok: false, error: 'a message is not an object' };
    const blocks: Rec[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [];
    if (Array.isArray(m.content)) for (const b of m.content) if (isRec(b)) blocks.push(b);
    if (m.role === 'assistant') {
      let text = '';
      const toolCalls: ToolCall[] = [];
      for (const b of blocks) {
        if (b.type === 'text') text += str(b.text);
        else if (b.type === 'tool_use')
          toolCalls.push({ id: str(b.id), name: str(b.name), arguments: JSON.stringify(b.input ?? {}) });
      }
      messages.push({ role: 'assistant', content: text, toolCalls });
    } else {
      for (const b of blocks) {
        if (b.type === 'tool_result') {
          const id = str(b.tool_use_id);
          messages.push({
            role: 'tool',
            toolCallId: id,
            name: toolNameById(messages, id),
            content: textOf(b.content),
            isError: b.is_error === true,
          });
        } else if (b.type === 'text') messages.push({ role: 'user', content: str(b.text) });
        // The first cache breakpoint on a message marks the end of the stable prefix.
        if (b.cache_control !== undefined && prefix === undefined) prefix = messages.length;
      }
    }
  }
  const tools: ToolSpec[] = [];
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      if (!isRec(t)) continue;
      tools.push({
        name: str(t.name),
        description: str(t.description),
        parameters: isRec(t.input_schema) ? t.input_schema : {},
      });
    }
  }
  const request: ModelRequest = {
    system: textOf(body.system),
    messages,
    tools,
    stream: body.stream === true,
  };
  if (prefix !== undefined) request.stablePrefixMessages = prefix;
  return { ok: true, request: withMax(request, body.max_tokens) };
}
