/**
 * A pull request's title and body: the run's summary (view/summary.ts, the numbers `colony show`
 * prints, with the glossary's words) as Markdown, and what landed. Everything an agent wrote (notes,
 * names, the goal, the reason, commands) goes in code spans, made one visible line
 * (core/terminal-text.ts): on a forge, Markdown outside a code span could mention people, link,
 * embed images or close issues.
 */
import { terminalLine } from '../core/terminal-text.js';
import { GLOSSARY } from '../view/glossary.js';
import type { RunSummary } from '../view/summary.js';
import type { LandedMerge, RunResult } from './run-result.js';

const TITLE_MAX = 120;
const TEXT_MAX = 300;
/** Landed merge requests listed in one body; the rest are counted (a forge caps a body's size). */
const LIST_MAX = 100;

/** One landed merge request of the run, with its place in the run's order. */
export interface MergeRequestPart {
  merge: LandedMerge;
  index: number;
  of: number;
}

export function pullRequestTitle(result: RunResult, part?: MergeRequestPart): string {
  const words = part ? part.merge.note || `merge request #${part.merge.mr}` : result.summary.goal || 'result';
  const suffix = part ? ` (colony ${result.runId}, MR #${part.merge.mr})` : ` (colony ${result.runId})`;
  return clip(oneLine(words), TITLE_MAX - suffix.length) + suffix;
}

export function pullRequestBody(result: RunResult, draft: boolean, part?: MergeRequestPart): string {
  const s = result.summary;
  const lines: string[] = [];
  lines.push(
    `Colony run ${code(result.runId)} (${code(s.topology ?? 'unknown')}) ended **${s.status}**${s.reason ? `: ${code(s.reason)}` : ''}.`,
    '',
    `Goal: ${code(s.goal ?? '')}`,
    '',
  );
  if (draft) lines.push(`**Draft:** ${draftReason(s)}. Review it before merging.`, '');
  if (part)
    lines.push(
      `This is merge request ${part.index} of ${part.of} that landed in the run, on a branch of its own; ` +
        'its base is the one before it, so each pull request shows its own change.',
      '',
    );
  lines.push('### What landed', '');
  const landed = part ? [part.merge] : result.landed;
  for (const m of landed.slice(0, LIST_MAX)) lines.push(landedLine(m));
  if (landed.length > LIST_MAX) lines.push(`- … and ${landed.length - LIST_MAX} more`);
  if (landed.length === 0) lines.push(`- the result commit ${code(result.commit.slice(0, 12))}`);
  lines.push('', part ? "### The whole run's numbers" : "### The run's numbers", '', ...numbers(s), '');
  lines.push(
    '<details><summary>What these numbers mean</summary>',
    '',
    ...[
      GLOSSARY.criticalSteps,
      GLOSSARY.parallelism,
      GLOSSARY.coordinationShare,
      GLOSSARY.cachedInput,
      GLOSSARY.cost,
    ].map((text) => `- ${text}`),
    '',
    '</details>',
    '',
    `The whole run — timeline, critical path, tokens and cost over time, agents, merges — is in Colony's log on the machine that ran it: ${code(`colony report ${result.runId}`)} writes it as a self-contained HTML page, ${code(`colony show ${result.runId}`)} prints it.`,
  );
  return lines.join('\n');
}

function draftReason(s: RunSummary): string {
  if (s.verify && !s.verify.passed)
    return `verify failed on the result (${code(s.verify.command)} → exit ${s.verify.exitCode ?? 'none'})`;
  if (s.status !== 'succeeded') return `the run did not succeed (${s.status})`;
  return 'opened as a draft on request';
}

function landedLine(m: LandedMerge): string {
  const who = m.agent ? ` by ${code(m.agent)}` : '';
  const files = m.files.length > 0 ? ` (${m.files.length} file${m.files.length === 1 ? '' : 's'})` : '';
  return `- MR #${m.mr}${who}: ${code(m.note || '(no note)')} — ${code(m.commit.slice(0, 12))}${files}`;
}

/** The summary's numbers, as `colony show` words them (cli/summary-text.ts). */
function numbers(s: RunSummary): string[] {
  const t = s.tokens;
  const cost = s.costUsd === null ? 'unpriced' : `$${s.costUsd.toFixed(4)}`;
  const rows: Array<[string, string]> = [
    ['wall-clock', `${(s.wallClockMs / 1000).toFixed(1)} s`],
    ['steps · tool calls · agents', `${s.steps} · ${s.toolCalls} · ${s.agents}`],
    [
      'tokens',
      `${t.input} input + ${t.cachedInput} cached input + ${t.cacheWrite} cache writes, ${t.output} output (${t.reasoning} reasoning)`,
    ],
    ['cost', `${cost}${s.unpricedCalls > 0 ? ` (${s.unpricedCalls} unpriced calls)` : ''}`],
    ['CriticalSteps', String(s.criticalSteps)],
    ['parallelism', s.parallelism.toFixed(2)],
    ['finish rate', `${percent(s.finishRate)} (${s.agentsFinished}/${s.agents})`],
    [
      'coordination share',
      `${percent(s.coordinationShareOfInput)} of input, ${percent(s.coordinationShareOfUncachedInput)} of uncached input`,
    ],
    [
      'verify',
      s.verify
        ? `${code(s.verify.command)} → ${s.verify.passed ? 'passed' : `failed (exit ${s.verify.exitCode ?? 'none'})`}`
        : 'none',
    ],
  ];
  return ['| | |', '|---|---|', ...rows.map(([name, value]) => `| ${name} | ${value} |`)];
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/**
 * `text` as one Markdown code span: control characters made visible, clipped, and fenced by more
 * backticks than it holds in a row (a pipe is escaped too: a span may sit in a table).
 */
export function code(text: string): string {
  const line = clip(oneLine(text), TEXT_MAX).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line === '' ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

function oneLine(text: string): string {
  return terminalLine(text.trim().replace(/\r?\n/g, ' '));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
