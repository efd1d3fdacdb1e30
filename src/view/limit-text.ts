/**
 * One limit hit in words, for every place that shows one (CLI lines, summary, dashboard, report).
 * `model_concurrency` is not a configured limit: the provider answered 429 and the run's rate gate
 * lowered how many model requests it sends at once (run/rate-gate.ts).
 */
export interface LimitHitFacts {
  limit: string;
  value: number;
  used: number;
}

export function limitHitText(hit: LimitHitFacts): string {
  switch (hit.limit) {
    case 'model_concurrency':
      return `the provider asked to slow down (429 rate limit): model requests at once lowered to ${hit.value} (${hit.used} were in flight)`;
    // A budget is checked before each call: the spend may already be past it (a call in flight
    // overshot), exactly at it, or below it with the next call able to pass it.
    case 'budget_usd':
      if (hit.used > hit.value) return `money budget exceeded: $${round(hit.used)} spent of $${hit.value}`;
      if (hit.used === hit.value) return `money budget used up: $${round(hit.used)} of $${hit.value}`;
      return `money budget reached: the next call could pass $${hit.value} ($${round(hit.used)} spent)`;
    case 'budget_tokens':
      if (hit.used > hit.value) return `token budget exceeded: ${hit.used} tokens used of ${hit.value}`;
      if (hit.used === hit.value) return `token budget used up: ${hit.used} tokens of ${hit.value}`;
      return `token budget reached: the next call could pass ${hit.value} tokens (${hit.used} used)`;
    case 'max_steps':
      return `step cap reached: ${hit.used} of ${hit.value} steps`;
    case 'max_open_workflows':
      return `workflow runs of the lead: ${hit.used} open, at most ${hit.value} (one more was refused)`;
    case 'runs_per_server':
      return `run slots full: at most ${hit.value} runs at once on this store (${hit.used} running)`;
    default:
      return `limit hit: ${hit.limit} = ${hit.value} (used ${hit.used})`;
  }
}

function round(usd: number): string {
  return usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2);
}
