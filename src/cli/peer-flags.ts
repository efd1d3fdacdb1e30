/**
 * `colony run --topology peers --peer-models peer-2=MODEL,peer-3=MODEL --peer-max-steps peer-1=20`:
 * a built-in peer's own model and step cap (two flags, because a model id has colons of its own:
 * `openai-chat:gpt-4o`). Parsed here (syntax, a positive cap, each peer once per flag, usage errors);
 * which peers exist and which models are known is the spec builder's check (runner/), for the flags
 * and the config file's "peers" alike.
 */
import type { PeerSetting } from '../run/run-spec.js';
import { UsageError } from './args.js';

export interface PeerFlagValues {
  'peer-models'?: string;
  'peer-max-steps'?: string;
}

/** The two flags as per-peer settings (undefined when neither is given). */
export function peerSettingFlags(values: PeerFlagValues): Record<string, PeerSetting> | undefined {
  const models = values['peer-models'];
  const caps = values['peer-max-steps'];
  if (models === undefined && caps === undefined) return undefined;
  const settings: Record<string, PeerSetting> = {};
  for (const [peer, model] of entries('peer-models', models, 'MODEL'))
    settings[peer] = { ...settings[peer], model };
  for (const [peer, cap] of entries('peer-max-steps', caps, 'N')) {
    const maxSteps = Number(cap);
    if (!/^\d+$/.test(cap) || !Number.isSafeInteger(maxSteps) || maxSteps < 1)
      throw new UsageError(
        `run: --peer-max-steps ${peer}: the step cap must be a positive integer, got "${cap}"`,
      );
    settings[peer] = { ...settings[peer], maxSteps };
  }
  return settings;
}

/** `peer-2=X,peer-3=Y` → [[peer-2, X], [peer-3, Y]]. */
function entries(flag: string, value: string | undefined, what: string): [string, string][] {
  if (value === undefined) return [];
  const usage = (detail: string) =>
    new UsageError(
      `run: --${flag} takes PEER=${what} entries, comma-separated (e.g. peer-2=${what}); ${detail}`,
    );
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw usage('none given');
  const seen = new Set<string>();
  return parts.map((part): [string, string] => {
    const at = part.indexOf('=');
    const peer = part.slice(0, Math.max(0, at)).trim();
    const given = part.slice(at + 1).trim();
    if (at < 0 || peer === '' || given === '') throw usage(`not "${part}"`);
    if (seen.has(peer)) throw usage(`${peer} twice`);
    seen.add(peer);
    return [peer, given];
  });
}
