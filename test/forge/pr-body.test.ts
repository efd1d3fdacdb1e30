/**
 * A pull request's title and body from the run's log (run-result.ts, pr-body.ts): what landed, the
 * summary's numbers with their glossary, the verify result, where the report is; everything an agent
 * wrote inside code spans (no mention, link or closing keyword works there), on one visible line.
 */
import { describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { pullRequestBody, pullRequestTitle } from '../../src/forge/pr-body.js';
import { mergeRequestBranch, runResultOf } from '../../src/forge/run-result.js';

const RUN = 'r-1';

function stored(events: EventInput[]): StoredEvent[] {
  return events.map(
    (e, i) =>
      ({
        ...e,
        seq: i + 1,
        ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        hash: '',
        prevHash: '',
      }) as StoredEvent,
  );
}

function log(options: { verifyPassed?: boolean; note?: string; fetched?: boolean } = {}): StoredEvent[] {
  const passed = options.verifyPassed ?? true;
  const events: EventInput[] = [
    {
      runId: RUN,
      agent: null,
      kind: 'run.started',
      data: {
        topology: 'solo',
        goal: 'Fix `parse`\nnow',
        repo: '/r',
        base: 'b'.repeat(40),
        model: 'm',
        config: {},
      },
    },
    {
      runId: RUN,
      agent: 'solo',
      kind: 'merge.requested',
      data: { mr: 1, branch: 'agent/solo', commit: 'c'.repeat(40), note: options.note ?? 'fix it' },
    },
    {
      runId: RUN,
      agent: 'solo',
      kind: 'merge.landed',
      data: {
        mr: 1,
        commit: 'd'.repeat(40),
        mainBefore: 'b'.repeat(40),
        batch: [1],
        files: ['a.ts', 'b.ts'],
      },
    },
    {
      runId: RUN,
      agent: null,
      kind: 'verify.finished',
      data: { command: 'npm test', exitCode: passed ? 0 : 2, passed, output: '', durationMs: 1 },
    },
  ];
  if (options.fetched ?? true)
    events.push({
      runId: RUN,
      agent: null,
      kind: 'result.fetched',
      data: { branch: `colony/${RUN}`, commit: 'd'.repeat(40), repo: '/r' },
    });
  events.push({
    runId: RUN,
    agent: null,
    kind: 'run.finished',
    data: {
      status: passed ? 'succeeded' : 'failed',
      reason: '',
      resultBranch: options.fetched === false ? null : `colony/${RUN}`,
    },
  });
  return stored(events);
}

describe('runResultOf', () => {
  it('reads the result branch and the landed merge requests with their notes', () => {
    const result = runResultOf(RUN, log());
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ branch: `colony/${RUN}`, commit: 'd'.repeat(40), repo: '/r' });
    expect(result.value.landed).toEqual([
      { mr: 1, agent: 'solo', note: 'fix it', commit: 'd'.repeat(40), files: ['a.ts', 'b.ts'] },
    ]);
    expect(mergeRequestBranch(result.value, 1)).toBe(`colony/${RUN}-mr-1`);
  });

  it('refuses a run that landed nothing or has not finished', () => {
    const none = runResultOf(RUN, log({ fetched: false }));
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error).toMatch(/landed nothing: there is no result branch to publish/);
    const running = runResultOf(RUN, log().slice(0, 2));
    expect(running.ok).toBe(false);
    if (!running.ok) expect(running.error).toMatch(/has not finished/);
  });
});

describe('the pull request text', () => {
  it('is the run summary: what landed, the numbers, verify and the report command', () => {
    const result = runResultOf(RUN, log());
    if (!result.ok) throw new Error(result.error);
    const body = pullRequestBody(result.value, false);
    expect(body).toContain('Colony run `r-1` (`solo`) ended **succeeded**.');
    expect(body).toContain('- MR #1 by `solo`: `fix it` — `dddddddddddd` (2 files)');
    for (const row of [
      '| tokens |',
      '| cost | unpriced',
      '| CriticalSteps |',
      '| parallelism |',
      '| coordination share |',
      '| verify | `npm test` → passed',
    ])
      expect(body).toContain(row);
    expect(body).toContain('CriticalSteps: model calls on the longest chain');
    expect(body).toContain('`colony report r-1`');
    expect(body).not.toContain('**Draft:**');
    expect(pullRequestTitle(result.value)).toBe('Fix `parse` now (colony r-1)');
  });

  it('says why it is a draft when verify failed', () => {
    const result = runResultOf(RUN, log({ verifyPassed: false }));
    if (!result.ok) throw new Error(result.error);
    expect(pullRequestBody(result.value, true)).toContain(
      '**Draft:** verify failed on the result (`npm test` → exit 2)',
    );
  });

  it("keeps an agent's words inert: code spans longer than any backtick run, one line, controls shown", () => {
    const note = 'closes #1 @everyone ``` ![x](http://e/x.png)\n# heading \u001b[2J |';
    const result = runResultOf(RUN, log({ note }));
    if (!result.ok) throw new Error(result.error);
    const body = pullRequestBody(result.value, false);
    const line = body.split('\n').find((l) => l.startsWith('- MR #1')) ?? '';
    expect(line).toContain('````closes #1 @everyone ``` ![x](http://e/x.png) # heading ␛[2J \\|````');
    expect(body).not.toContain('\u001b');
    expect(body.split('\n').some((l) => l.startsWith('# heading'))).toBe(false);
  });
});
