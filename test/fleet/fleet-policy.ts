/**
 * The scripted model of the fleet tests, served by the fake provider over HTTP (workers call it like
 * any real endpoint). Stateless, so any worker can answer any peer's next turn after a takeover: the
 * step is the number of tool results in the request. Each peer claims work/<id>-*, writes `files`
 * files, asks to merge them, releases its claim and answers.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';

/**
 * `second`: after its first merge request a peer syncs (a rebase onto main, so its branch's next
 * publish is no fast-forward), writes work/<id>/extra.txt and asks to merge again.
 */
export function fleetPeersPolicy(files = 3, options: { second?: boolean } = {}): ScriptedPolicy {
  return (request) => {
    const id = /Your peer ID is (peer-\d+)/.exec(request.system)?.[1] ?? 'unknown';
    const done = request.messages.filter((m) => m.role === 'tool').length;
    const usage = { input: 100, cachedInput: 0, output: 10 };
    const call = (name: string, args: Record<string, unknown>) => ({
      toolCalls: [{ name, arguments: args }],
      usage,
    });
    const scope = `work/${id}/`;
    if (done === 0) return call('claim', { scope, summary: `the files of ${id}` });
    if (done <= files) return call('write', { path: `${scope}${done}.txt`, content: `${id} ${done}\n` });
    if (done === files + 1) return call('merge_request', { note: `files of ${id}` });
    const extra = options.second ? 3 : 0;
    if (extra > 0 && done === files + 2) return call('sync', {});
    if (extra > 0 && done === files + 3)
      return call('write', { path: `${scope}extra.txt`, content: `${id} again\n` });
    if (extra > 0 && done === files + 4) return call('merge_request', { note: `more of ${id}` });
    if (done === files + 2 + extra) return call('release', { scope, outcome: 'done, submitted' });
    return { text: `${id} done`, usage };
  };
}
