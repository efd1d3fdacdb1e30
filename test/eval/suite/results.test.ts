/**
 * Per-test result parsers: Node's own TAP and JUnit output (made by the Node running the tests, so a
 * change of Node's format shows here), other runners' JUnit and jest JSON, and malformed input, which
 * is an error value, never a throw.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseJestJson,
  parseJunitXml,
  parseNodeTap,
  parseResults,
} from '../../../src/eval/suite/results/index.js';
import type { TestResult } from '../../../src/eval/suite/results/types.js';

const FIXTURE = `
const { test, describe, it } = require('node:test');
const assert = require('node:assert');
test('top ok', () => {});
test('top fail', () => { assert.equal(1, 2, 'not ok 7 - looks like a result'); });
describe('group', () => {
  it('inner ok', () => {});
  it('inner # with hash', () => { throw new Error('x\\nok 3 - fake\\n  ...'); });
  it.skip('skipped', () => {});
  it.todo('todo one', () => {});
  describe('deeper', () => { it('leaf', () => {}); });
});
`;
const FIXTURE_B = `const { test } = require('node:test');\ntest('b one', () => { console.log('ok 99 - printed'); });\n`;

const EXPECTED: [string, TestResult['status']][] = [
  ['top ok', 'pass'],
  ['top fail', 'fail'],
  ['group > inner ok', 'pass'],
  ['group > inner # with hash', 'fail'],
  ['group > skipped', 'skip'],
  ['group > todo one', 'skip'],
  ['group > deeper > leaf', 'pass'],
  ['b one', 'pass'],
];

function statuses(results: TestResult[]): Record<string, string> {
  return Object.fromEntries(results.map((r) => [r.name, r.status]));
}

let dir: string;
const outputs: Record<string, string> = {};
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'colony-results-'));
  mkdirSync(path.join(dir, 'test'));
  writeFileSync(path.join(dir, 'test', 'a.test.cjs'), FIXTURE);
  writeFileSync(path.join(dir, 'test', 'b.test.cjs'), FIXTURE_B);
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  for (const reporter of ['tap', 'junit']) {
    const run = spawnSync(process.execPath, ['--test', `--test-reporter=${reporter}`], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    outputs[reporter] = run.stdout;
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('node-test-tap', () => {
  it("reads this Node's TAP: nested names, skip and todo, YAML and printed lines that look like results", () => {
    const parsed = parseNodeTap(outputs.tap ?? '');
    if (!parsed.ok) throw new Error(parsed.error);
    const got = statuses(parsed.value);
    for (const [name, status] of EXPECTED) expect(got[name], name).toBe(status);
    expect(Object.keys(got).some((n) => /fake|printed|looks like/.test(n))).toBe(false);
    // The describe block is a result of its own (failed: a child failed).
    expect(got.group).toBe('fail');
  });

  it('unescapes names and reads directives', () => {
    const tap = [
      'TAP version 13',
      'ok 1 - a \\# b \\\\ c',
      'not ok 2 - later # TODO not yet',
      'ok 3 - off # SKIP',
      '1..3',
    ];
    const parsed = parseNodeTap(tap.join('\n'));
    expect(parsed).toEqual({
      ok: true,
      value: [
        { name: 'a # b \\ c', status: 'pass', aliases: [] },
        { name: 'later', status: 'skip', aliases: [] },
        { name: 'off', status: 'skip', aliases: [] },
      ],
    });
  });

  it('is an error for output without TAP, and for output cut short of its plan', () => {
    expect(parseNodeTap('')).toMatchObject({ ok: false });
    expect(parseNodeTap('bash: node: command not found\n')).toMatchObject({
      ok: false,
      error: expect.stringContaining('no TAP'),
    });
    expect(parseNodeTap('TAP version 13\nok 1 - a\n1..3\n')).toMatchObject({
      ok: false,
      error: expect.stringContaining('1..3'),
    });
    expect(parseNodeTap('TAP version 13\n1..0\n')).toEqual({ ok: true, value: [] });
  });
});

describe('junit-xml', () => {
  it("reads this Node's JUnit output with the same names as its TAP", () => {
    const parsed = parseJunitXml(outputs.junit ?? '');
    if (!parsed.ok) throw new Error(parsed.error);
    const got = statuses(parsed.value);
    for (const [name, status] of EXPECTED) expect(got[name], name).toBe(status);
  });

  it("gives pytest's and Surefire's ids as aliases", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="3">
  <testcase classname="tests.test_x.TestFoo" name="test_bar[1-2]" file="tests/test_x.py" line="3"/>
  <testcase classname="tests.test_x" name="test_top" file="tests/test_x.py"><failure message="boom">trace &lt;here&gt;</failure></testcase>
  <testcase classname="tests.test_x" name="test_err"><error message="e"/></testcase>
  <testcase classname="tests.test_x" name="test_skip"><skipped/></testcase>
  <testcase name="123"></testcase>
</testsuite>
<testsuite name="com.acme.FooTest"><testcase classname="com.acme.FooTest" name="adds &amp; subtracts"/></testsuite>
</testsuites>`;
    const parsed = parseJunitXml(xml);
    if (!parsed.ok) throw new Error(parsed.error);
    const [bar, top, errored, skipped, numeric, surefire] = parsed.value;
    expect(bar).toMatchObject({ name: 'pytest > test_bar[1-2]', status: 'pass' });
    expect(bar?.aliases).toContain('tests/test_x.py::TestFoo::test_bar[1-2]');
    expect(top).toMatchObject({ status: 'fail' });
    expect(top?.aliases).toContain('tests/test_x.py::test_top');
    expect(errored?.status).toBe('fail');
    expect(skipped?.status).toBe('skip');
    expect(numeric).toEqual({ name: 'pytest > 123', status: 'pass', aliases: [] });
    expect(surefire?.aliases).toContain('com.acme.FooTest.adds & subtracts');
  });

  it('reads a single <testsuite> root', () => {
    const parsed = parseJunitXml('<testsuite name="s"><testcase name="t"/></testsuite>');
    expect(parsed).toEqual({ ok: true, value: [{ name: 's > t', status: 'pass', aliases: [] }] });
  });

  it('is an error for empty, cut-short or foreign XML', () => {
    expect(parseJunitXml('')).toMatchObject({ ok: false });
    expect(parseJunitXml('<testsuites><testcase name="a">')).toMatchObject({
      ok: false,
      error: expect.stringContaining('invalid JUnit XML'),
    });
    expect(parseJunitXml('<html><body/></html>')).toMatchObject({
      ok: false,
      error: expect.stringContaining('<testsuites>'),
    });
    expect(parseJunitXml('not xml at all')).toMatchObject({ ok: false });
  });
});

describe('jest-json', () => {
  const report = {
    numTotalTests: 3,
    testResults: [
      {
        name: '/r/test/a.test.js',
        status: 'failed',
        assertionResults: [
          { ancestorTitles: ['math'], title: 'adds', fullName: 'math adds', status: 'passed' },
          { ancestorTitles: ['math'], title: 'divides', fullName: 'math divides', status: 'failed' },
          { ancestorTitles: [], title: 'later', fullName: 'later', status: 'todo' },
        ],
      },
      { name: '/r/test/broken.test.js', status: 'failed', assertionResults: [] },
    ],
  };

  it('reads assertion results with describe titles, and a file that did not run as a failure', () => {
    const parsed = parseJestJson(`> jest --json\n${JSON.stringify(report)}`);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.value).toEqual([
      { name: 'math > adds', status: 'pass', aliases: ['math adds'] },
      { name: 'math > divides', status: 'fail', aliases: ['math divides'] },
      { name: 'later', status: 'skip', aliases: [] },
      { name: '/r/test/broken.test.js', status: 'fail', aliases: [] },
    ]);
  });

  it('is an error for output that is not a jest report', () => {
    expect(parseJestJson('')).toMatchObject({ ok: false });
    expect(parseJestJson('{"numTotalTests": 1}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('testResults'),
    });
  });
});

it('parseResults picks the parser by format', () => {
  expect(parseResults('node-test-tap', 'ok 1 - x\n')).toEqual({
    ok: true,
    value: [{ name: 'x', status: 'pass', aliases: [] }],
  });
  expect(parseResults('junit-xml', 'ok 1 - x\n').ok).toBe(false);
  expect(parseResults('jest-json', 'ok 1 - x\n').ok).toBe(false);
});
