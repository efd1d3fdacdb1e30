/**
 * Responses `namespace` tools (Codex groups an MCP server's tools in one: `mcp__colony` holding
 * `claim`, …) are called as `{type: 'function_call', namespace: 'mcp__colony', name: 'claim'}`. The
 * shared decoders keep `name` only; the proxy logs such a call as `<namespace>__<name>`
 * (`mcp__colony__claim`), the name Claude Code gives the same tool, so one tool reads the same in
 * the log whichever CLI called it.
 */
import type { ReadResult, StreamAccumulator } from '../model/http.js';
import type { RawTurn } from '../model/providers/shared.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The namespace of a function_call item, by its call id (nothing for others). */
function noteItem(item: unknown, into: Map<string, string>): void {
  if (!isObject(item) || item.type !== 'function_call' || typeof item.namespace !== 'string') return;
  const id = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : '';
  into.set(id, item.namespace);
}

function renamed(result: ReadResult<RawTurn>, namespaces: Map<string, string>): ReadResult<RawTurn> {
  if (!result.ok || namespaces.size === 0) return result;
  const toolCalls = result.value.toolCalls.map((call) => {
    const namespace = namespaces.get(call.id);
    return namespace ? { ...call, name: `${namespace}__${call.name}` } : call;
  });
  return { ok: true, value: { ...result.value, toolCalls } };
}

export function namespacedDecode(
  decode: (body: unknown) => ReadResult<RawTurn>,
): (body: unknown) => ReadResult<RawTurn> {
  return (body) => {
    const namespaces = new Map<string, string>();
    if (isObject(body) && Array.isArray(body.output))
      for (const item of body.output) noteItem(item, namespaces);
    return renamed(decode(body), namespaces);
  };
}

export function namespacedAccumulator(inner: StreamAccumulator<RawTurn>): StreamAccumulator<RawTurn> {
  const namespaces = new Map<string, string>();
  return {
    event(ev) {
      try {
        const data: unknown = JSON.parse(ev.data);
        // Items come one by one and again in the terminal event's full response.
        if (isObject(data)) {
          noteItem(data.item, namespaces);
          const output = isObject(data.response) ? data.response.output : undefined;
          if (Array.isArray(output)) for (const item of output) noteItem(item, namespaces);
        }
      } catch {
        // not JSON: the inner accumulator says what is wrong with it
      }
      return inner.event(ev);
    },
    finish: () => renamed(inner.finish(), namespaces),
  };
}
