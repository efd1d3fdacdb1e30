/**
 * The `sim:` model provider (src/model/providers/sim*.ts): its id, its seeded draw (the planted truth
 * must come out at the stated rate), the fix it knows from reference.patch, and the agent's decisions
 * (right fix on success, a marked wrong edit on failure). Its run end to end: test/eval/run/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../../src/model/catalog.js';
import { resolveModel } from '../../../src/model/models.js';
import { simPlanOf } from '../../../src/model/providers/sim.js';
import { SIM_WRONG_MARK, simAgentPolicy } from '../../../src/model/providers/sim-agent.js';
import { parseSimPatch } from '../../../src/model/providers/sim-patch.js';
import { parseSimModelId, simDraw, simModelId } from '../../../src/model/providers/sim-spec.js';
import type { Message, ModelRequest, ToolSpec } from '../../../src/model/types.js';

const SUITE = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');
const root = mkdtempSync(join(tmpdir(), 'colony-sim-provider-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('sim: model ids', () => {
  it('parses p, truth, task, seed and latency; refuses what it does not know', () => {
    expect(parseSimModelId('sim:p=0.6')).toEqual({
      ok: true,
      spec: { p: 0.6, truth: null, task: null, seed: '0', latencyMs: 0 },
    });
    const id = simModelId({ p: 1, task: '/a b/c&d', seed: 'solo/t/0', latencyMs: 5 });
    expect(parseSimModelId(id)).toMatchObject({
      ok: true,
      spec: { p: 1, task: '/a b/c&d', seed: 'solo/t/0', latencyMs: 5 },
    });
    expect(parseSimModelId('sim:')).toMatchObject({
      ok: false,
      error: expect.stringContaining('exactly one of p='),
    });
    expect(parseSimModelId('sim:p=1.5')).toMatchObject({
      ok: false,
      error: expect.stringContaining('from 0 to 1'),
    });
    expect(parseSimModelId('sim:p=')).toMatchObject({ ok: false });
    expect(parseSimModelId('sim:pp=1')).toMatchObject({
      ok: false,
      error: expect.stringContaining("unknown parameter 'pp'"),
    });
  });

  it('resolves to a record named simulated, with no network and no key', () => {
    const resolved = resolveModel('sim:p=0.5');
    if (!resolved.ok) throw new Error(resolved.error);
    expect(resolved.model).toMatchObject({ protocol: 'scripted', name: 'sim (simulated)' });
    const catalog = new ModelCatalog({ runModel: 'sim:p=0.5', env: {} });
    expect(catalog.endpoint()).toMatchObject({ ok: true, endpoint: { url: undefined, keyEnv: undefined } });
    expect(catalog.provider().ok).toBe(true);
    const missing = new ModelCatalog({ runModel: `sim:p=1&task=${join(root, 'none')}`, env: {} });
    expect(missing.provider()).toMatchObject({ ok: false, error: expect.stringContaining('cannot read') });
  });
});

describe('the draw', () => {
  it('is reproducible and succeeds at the stated rate (the planted truth)', () => {
    expect(simDraw('a/b/0')).toBe(simDraw('a/b/0'));
    expect(simDraw('a/b/0')).not.toBe(simDraw('a/b/1'));
    const n = 4000;
    for (const p of [0.1, 0.5, 0.8]) {
      let wins = 0;
      for (let i = 0; i < n; i++) if (simDraw(`seed/arm/task/${i}`) < p) wins++;
      // 4 standard errors: fails for a biased draw, not by chance.
      expect(Math.abs(wins / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
    }
  });

  it('per-task chances from a truth file; p = 0 and p = 1 are certain', () => {
    const truth = join(root, 'truth.json');
    writeFileSync(truth, JSON.stringify({ default: 0, tasks: { 'textkit-slugify': 1 } }));
    const task = join(SUITE, 'textkit-slugify');
    for (let t = 0; t < 20; t++) {
      const plan = simPlanOf({ p: null, truth, task, seed: `s/${t}`, latencyMs: 0 });
      if (!plan.ok) throw new Error(plan.error);
      expect(plan.value).toMatchObject({ taskId: 'textkit-slugify', succeed: true, p: 1, wrongFile: null });
      const other = simPlanOf({
        p: null,
        truth,
        task: join(SUITE, 'ledger-three-bugs'),
        seed: `s/${t}`,
        latencyMs: 0,
      });
      if (!other.ok) throw new Error(other.error);
      expect(other.value.succeed).toBe(false);
      expect(other.value.files.map((f) => f.path)).toContain(other.value.wrongFile);
    }
  });
});

describe('the fix it knows', () => {
  it('reads reference.patch as one edit per hunk', () => {
    const plan = simPlanOf({
      p: 1,
      truth: null,
      task: join(SUITE, 'textkit-three-bugs'),
      seed: '0',
      latencyMs: 0,
    });
    if (!plan.ok) throw new Error(plan.error);
    expect(plan.value.files.map((f) => [f.path, f.hunks.length])).toEqual([
      ['src/slugify.js', 1],
      ['src/truncate.js', 1],
      ['src/wrap.js', 1],
    ]);
    const hunk = plan.value.files[1]?.hunks[0];
    expect(hunk?.old).toContain('if (text.length < max) return text;');
    expect(hunk?.new).toContain('if (text.length <= max) return text;');
    expect(hunk?.new).not.toContain('if (text.length < max)');
  });

  it('a new file is written whole', () => {
    const files = parseSimPatch(
      'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n',
    );
    expect(files).toEqual([{ path: 'n.txt', created: true, content: 'one\ntwo\n', hunks: [] }]);
  });
});

describe('the simulated agent (solo)', () => {
  const tools: ToolSpec[] = ['read', 'edit', 'write', 'bash'].map((name) => ({
    name,
    description: '',
    parameters: {},
  }));
  /** Drives the policy as the loop would, answering each tool call with `ok`. */
  async function drive(
    succeed: boolean,
  ): Promise<{ calls: Array<{ name: string; args: Record<string, unknown> }>; answer: string }> {
    const plan = simPlanOf({
      p: succeed ? 1 : 0,
      truth: null,
      task: join(SUITE, 'textkit-three-bugs'),
      seed: 'x',
      latencyMs: 0,
    });
    if (!plan.ok) throw new Error(plan.error);
    const policy = simAgentPolicy(plan.value);
    const messages: Message[] = [{ role: 'user', content: 'fix it' }];
    const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
    for (let i = 0; i < 20; i++) {
      const request: ModelRequest = { system: 'solo', messages: [...messages], tools };
      const turn = await policy(request, i);
      expect(turn.text).toMatch(/^\[simulated\] /);
      const tc = turn.toolCalls?.[0];
      if (!tc) return { calls, answer: turn.text ?? '' };
      const id = `c${i}`;
      calls.push({ name: tc.name, args: tc.arguments as Record<string, unknown> });
      messages.push({
        role: 'assistant',
        content: turn.text ?? '',
        toolCalls: [{ id, name: tc.name, arguments: JSON.stringify(tc.arguments) }],
      });
      messages.push({ role: 'tool', toolCallId: id, name: tc.name, content: 'ok', isError: false });
    }
    throw new Error('the agent never answered');
  }

  it('on success: reads each file, makes every edit of the fix, answers', async () => {
    const { calls, answer } = await drive(true);
    expect(calls.map((c) => `${c.name} ${String(c.args.path)}`)).toEqual([
      'read src/slugify.js',
      'edit src/slugify.js',
      'read src/truncate.js',
      'edit src/truncate.js',
      'read src/wrap.js',
      'edit src/wrap.js',
    ]);
    expect(calls.some((c) => String(c.args.new).includes(SIM_WRONG_MARK))).toBe(false);
    expect(answer).toMatch(/draw succeeded/);
  });

  it('on failure: one file gets a wrong edit that leaves the bug in place', async () => {
    const { calls, answer } = await drive(false);
    const wrong = calls.filter((c) => String(c.args.new).includes(SIM_WRONG_MARK));
    expect(wrong).toHaveLength(1);
    expect(String(wrong[0]?.args.new)).toContain(String(wrong[0]?.args.old));
    expect(answer).toMatch(/draw failed/);
  });
});
