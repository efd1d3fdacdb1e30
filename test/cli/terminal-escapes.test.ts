/**
 * Agent-controlled text on the user's terminal: a scripted model whose answer, and a tool output
 * (its bash call's stdout), carry escape sequences — an OSC 52 clipboard write, a title change, cursor
 * moves and a screen clear, a carriage return that overwrites the line, an 8-bit CSI (C1), a bidi
 * override — in a real `colony run` of the built CLI, then `colony logs` and `colony show` of that
 * run. What reaches stdout holds none of those bytes, and the text around them is still there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

const HOSTILE =
  '\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x1b[1A\x1b[2K\r\u009b31m\u202egnp.exe\u202c\x1bP+q\x1b\\\x7f';
const ANSWER = `ANSWER-MARK ${HOSTILE} ANSWER-END`;
// The same sequences as bash's printf writes them (octal escapes; \302\233 is U+009B in UTF-8).
const PRINTF =
  "printf 'TOOL-MARK \\033]52;c;ZXZpbA==\\007\\033]0;pwned\\007\\033[2J\\r\\302\\233" +
  "31m\\342\\200\\256txt TOOL-END\\n'";

const policy: ScriptedPolicy = (request) => {
  const toolResults = request.messages.filter((m) => m.role === 'tool').length;
  if (toolResults === 0) return { toolCalls: [{ name: 'bash', arguments: { command: PRINTF } }] };
  return { text: ANSWER };
};

/** ESC and the other C0 controls but newline and tab, DEL, C1, and the bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what the test looks for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function unsafeIn(text: string): string[] {
  return [...text].filter((c) => UNSAFE.test(c)).map((c) => `U+${c.codePointAt(0)?.toString(16)}`);
}

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ policy });
});
afterAll(async () => {
  await fake.close();
});

describe('agent text on the terminal: escape sequences are shown, never obeyed', () => {
  let runId = '';

  it('colony run prints the model text and the tool output without their control characters', async () => {
    const repo = createUserRepo({ 'README.md': '# tiny\n' }, 'colony-escapes-').dir;
    const r = await colony(
      ['run', '--repo', repo, '--goal', 'print things', ...fakeModelFlags(fake.url), '--sandbox', 'auto'],
      { env: NO_API_KEYS },
    );
    expect(r.code, r.stderr).toBe(0);
    runId = /run (r-[\w-]+)/.exec(r.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    expect(unsafeIn(r.stdout)).toEqual([]);
    expect(r.stdout).toContain('ANSWER-MARK');
    expect(r.stdout).toContain('TOOL-MARK');
    // Shown, not dropped: the escape reads as a visible sign.
    expect(r.stdout).toContain('␛]52;c;ZXZpbA==␇');
  });

  it('colony logs (plain and --json) and colony show print them made visible', async () => {
    const logs = await colony(['logs', runId]);
    expect(logs.code, logs.stderr).toBe(0);
    expect(unsafeIn(logs.stdout)).toEqual([]);
    expect(logs.stdout).toContain('ANSWER-MARK');
    expect(logs.stdout).toContain('TOOL-MARK');

    const show = await colony(['show', runId]);
    expect(show.code, show.stderr).toBe(0);
    expect(unsafeIn(show.stdout)).toEqual([]);
    expect(show.stdout).toContain('ANSWER-MARK');

    // --json stays exact JSON: the same text once parsed, with every unsafe character escaped.
    const json = await colony(['logs', runId, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(unsafeIn(json.stdout)).toEqual([]);
    const answers = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; data: { turn?: { text?: string } } })
      .filter((e) => e.kind === 'model.response' && e.data.turn?.text);
    expect(answers.map((e) => e.data.turn?.text)).toEqual([ANSWER]);

    const showJson = await colony(['show', runId, '--json']);
    expect(unsafeIn(showJson.stdout)).toEqual([]);
    expect(lastJsonLine(showJson.stdout)).toMatchObject({ runId });
  });
});
