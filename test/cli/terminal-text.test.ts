/**
 * terminalText and its uses by the CLI's formatters: what an agent wrote is shown, never obeyed —
 * in an event line (its text, its name) and in the summary (its reason, the agents' table, whose
 * columns are measured on what is shown).
 */
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/cli/event-line.js';
import { formatSummary } from '../../src/cli/summary-text.js';
import type { StoredEvent } from '../../src/core/events.js';
import { terminalJson, terminalLine, terminalText } from '../../src/core/terminal-text.js';
import { summarise } from '../../src/view/summary.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what the test looks for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const ESCAPES = 'a\x1b]52;c;eA==\x07b\x1b[2Jc\rd\u009b1m\u202ee\u2066f\x00g\x7fh';

describe('terminalText', () => {
  it('shows every control character but newline and tab, and keeps the text', () => {
    expect(terminalText(ESCAPES)).toBe('a␛]52;c;eA==␇b␛[2Jc␍d\\u009b1m\\u202ee\\u2066f␀g␡h');
    expect(terminalText('line one\n\tline two ✓ 日本')).toBe('line one\n\tline two ✓ 日本');
    expect(terminalLine('one\ntwo\tthree')).toBe('one␊two␉three');
  });

  it('keeps --json exact: the same value parsed back, with nothing a terminal acts on', () => {
    const value = { text: ESCAPES, nested: ['\u2028', '\u0085'] };
    const json = terminalJson(value);
    expect(UNSAFE.test(json)).toBe(false);
    expect(json).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
    expect(JSON.parse(terminalJson(value, 2))).toEqual(value);
  });
});

describe('the CLI formatters show agent text', () => {
  it('an event line: the agent name and the text it quotes', () => {
    const line = formatEvent({
      runId: 'r',
      agent: 'evil\x1b[2J',
      kind: 'merge.requested',
      data: { mr: 1, branch: 'agent/evil', note: 'fix\x1b]0;title\x07 it\r' },
      seq: 1,
      ts: '2026-12-03T10:00:00.000Z',
      hash: 'h',
      prevHash: 'p',
    } as StoredEvent);
    expect(line).toBe('10:00:00 [evil␛[2J] merge request #1 from agent/evil: fix␛]0;title␇ it');
  });

  it('the summary: its reason and the agents table', () => {
    const account = {
      steps: 1,
      input: 10,
      cachedInput: 0,
      output: 1,
      costUsd: null,
      model: null,
      maxSteps: null,
    };
    const summary = {
      ...summarise('r-1', []),
      status: 'failed' as const,
      reason: 'agent said \x1b[31mred\x1b[0m',
      agents: 2,
      perAgent: {
        'lead\x1b]52;c;eA==\x07': { ...account, role: 'lead' },
        'coder\u202e': { ...account, role: 'coder' },
      },
    };
    const text = formatSummary(summary);
    expect(UNSAFE.test(text)).toBe(false);
    expect(text).toContain('agent said ␛[31mred␛[0m');
    expect(text).toContain('lead␛]52;c;eA==␇ [lead]');
    expect(text).toContain('coder\\u202e [coder]');
  });
});
