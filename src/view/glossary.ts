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

/** The glossary as indented lines for a command's --help. */
export function glossaryLines(
  terms: readonly GlossaryTerm[] = Object.keys(GLOSSARY) as GlossaryTerm[],
): string {
  return terms.map((t) => `  ${GLOSSARY[t]}`).join('\n');
}
