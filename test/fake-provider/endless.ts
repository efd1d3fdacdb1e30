/**
 * Bodies that never end, for the `endless` failure: HTTP 200, a start that looks right for the
 * protocol, then one piece repeated until the client hangs up. Without `intervalMs` the pieces go as
 * fast as the client reads them (back-pressure: the next write waits for `drain`), so a client
 * without a size limit fills its memory; with it, one piece per interval (a slow trickle that only a
 * total time-out ends).
 */
import type { ServerResponse } from 'node:http';

export type EndlessBody =
  /** A JSON document that never closes (one string value growing forever). */
  | 'json'
  /** SSE keep-alive comments (`: keep-alive`), no event ever. */
  | 'sse-comments'
  /** A valid stream start, then text deltas forever, never a final event. */
  | 'sse-deltas'
  /** `data: ` and then one line that never ends. */
  | 'sse-line';

export type EndlessProtocol = 'chat' | 'responses' | 'anthropic';

const PIECE_BYTES = 64 * 1024;
const sse = (data: unknown, event?: string): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** The start of the body and the piece repeated after it. */
export function endlessParts(protocol: EndlessProtocol, kind: EndlessBody): { head: string; piece: string } {
  const many = (unit: string) => unit.repeat(Math.max(1, Math.floor(PIECE_BYTES / unit.length)));
  const text = 'x'.repeat(64);
  switch (kind) {
    case 'json': {
      const head =
        protocol === 'anthropic'
          ? '{"id":"endless","type":"message","role":"assistant","content":[{"type":"text","text":"'
          : protocol === 'responses'
            ? '{"id":"endless","object":"response","output":[{"type":"message","content":[{"type":"output_text","text":"'
            : '{"id":"endless","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
      return { head, piece: 'a'.repeat(PIECE_BYTES) };
    }
    case 'sse-comments':
      return { head: '', piece: ': keep-alive\n\n' };
    case 'sse-line':
      return { head: 'data: ', piece: 'a'.repeat(PIECE_BYTES) };
    case 'sse-deltas': {
      if (protocol === 'anthropic') {
        const message = { id: 'endless', type: 'message', role: 'assistant', content: [], model: 'fake' };
        return {
          head:
            sse({ type: 'message_start', message }, 'message_start') +
            sse(
              { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
              'content_block_start',
            ),
          piece: many(
            sse(
              { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
              'content_block_delta',
            ),
          ),
        };
      }
      if (protocol === 'responses') {
        const at = { item_id: 'msg_endless', output_index: 0, content_index: 0 };
        return {
          head: sse(
            { type: 'response.created', response: { id: 'endless', status: 'in_progress', output: [] } },
            'response.created',
          ),
          piece: many(
            sse({ type: 'response.output_text.delta', ...at, delta: text }, 'response.output_text.delta'),
          ),
        };
      }
      const chunk = (delta: unknown) =>
        sse({
          id: 'endless',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta, finish_reason: null }],
        });
      return { head: chunk({ role: 'assistant', content: '' }), piece: many(chunk({ content: text })) };
    }
  }
}

/** Answers `res` with an endless body until the client goes away. */
export function sendEndless(
  res: ServerResponse,
  protocol: EndlessProtocol,
  kind: EndlessBody,
  intervalMs?: number,
): void {
  if (res.destroyed) return;
  const { head, piece } = endlessParts(protocol, kind);
  res.writeHead(200, {
    'content-type': kind === 'json' ? 'application/json' : 'text/event-stream',
    'cache-control': 'no-cache',
  });
  let stopped = false;
  res.on('close', () => {
    stopped = true;
  });
  if (head !== '') res.write(head);
  const next = (): void => {
    if (stopped || res.destroyed) return;
    if (intervalMs !== undefined) {
      res.write(piece);
      setTimeout(next, intervalMs);
      return;
    }
    while (!stopped && !res.destroyed && res.write(piece)) {
      // the socket takes more: keep writing
    }
    if (!stopped && !res.destroyed) res.once('drain', next);
  };
  next();
}
