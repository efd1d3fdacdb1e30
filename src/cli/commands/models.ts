import { KNOWN_MODELS } from '../../model/index.js';
import { parseFlags } from '../args.js';

export async function modelsCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } }, 'models');
  if (values.json) {
    process.stdout.write(`${JSON.stringify(KNOWN_MODELS)}\n`);
    return 0;
  }
  for (const m of KNOWN_MODELS) {
    const p = m.prices;
    const price = p
      ? `$${p.input}/$${p.cachedInput}/$${p.cacheWrite}/$${p.output} per M (in/cached/cache-write/out)`
      : 'unpriced';
    process.stdout.write(
      `${m.id.padEnd(26)} ${m.protocol.padEnd(17)} ctx ${String(m.contextWindow).padStart(8)}  ${price}\n`,
    );
  }
  process.stdout.write(
    '\nAny other model: --model <protocol>:<name> [--base-url URL], protocols openai-chat, openai-responses, anthropic\n',
  );
  return 0;
}
