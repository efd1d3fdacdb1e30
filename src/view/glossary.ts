/**
 * One line per number a newcomer cannot read by its name alone. The same words are shown by
 * `colony show --help`, `colony compare --help`, the report and the dashboard's tooltips (and the
 * README's "Reading a run's numbers"), so they cannot drift apart.
 */
export const GLOSSARY = {
  criticalSteps:
    "CriticalSteps: model calls on the longest chain that had to happen one after another (the lead's turns plus the longest task of each, or the busiest agent); the fewer, the sooner a team can finish",
  totalSteps: 'total steps: model calls of all agents together (what you pay for)',
  parallelism:
    'parallelism: total steps / CriticalSteps, how many agents worked at once on average (1 = no better than one agent)',
  finishRate: 'finish rate: agents that finished their work (done) out of those that started',
  coordinationShare:
    'coordination share: input tokens spent on turns that only coordinate (the lead, messages, claims, shared context, merges) instead of working on the code',
  cachedInput:
    'cached input: input tokens the provider served from its prompt cache (cheaper); input alone means uncached input',
  cost: 'cost: the sum over priced calls; "unpriced" when the model has no prices (never counted as $0)',
} as const;

export type GlossaryTerm = keyof typeof GLOSSARY;

/** The glossary for a command's --help: one entry per term, wrapped at `width` with a hanging indent. */
export function glossaryLines(
  terms: readonly GlossaryTerm[] = Object.keys(GLOSSARY) as GlossaryTerm[],
  width = 100,
): string {
  return terms.map((t) => wrap(GLOSSARY[t], width, '  ', '    ')).join('\n');
}

function wrap(text: string, width: number, first: string, rest: string): string {
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(' ')) {
    const fresh = line === first || line === rest;
    if (!fresh && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else line += fresh ? word : ` ${word}`;
  }
  lines.push(line);
  return lines.join('\n');
}
