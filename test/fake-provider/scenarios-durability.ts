/**
 * The crash-durability scenario (`--scenario durability`): a coder agent on the small repository of
 * `durabilityRepoFiles()` making 10 steps that mix a sizeable `write` (so a kill can land mid-write),
 * slow `bash` commands that log progress to files (mid-bash kills), `edit`s, a response with two
 * tool calls, and a long final answer (several stream frames).
 *
 * Stateless and deterministic: the next turn depends only on the step of the last assistant message
 * in the request, and tool call ids are derived from the step, so an uninterrupted run and a run
 * recovered after kills send byte-identical requests when their conversations are identical.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { Message } from '../../src/model/types.js';

/** Files of the repository the scenario works on (path → content). */
export function durabilityRepoFiles(): Record<string, string> {
  return {
    'README.md': '# ledger\n\nA tiny ledger used by the crash-durability test.\n',
    // The two markers are what the scenario's edits anchor on. With `keep-anchor` edits each edit's
    // `new` still holds its `old`, so an edit applied again after a kill would apply twice (file
    // tools are exactly-once: agent/in-flight.ts); `replace-anchor` edits converge however often
    // they run.
    'src/ledger.js':
      '// imports\nexport function total(entries) {\n  let sum = 0;\n  for (const e of entries) sum += e.amount;\n  return sum;\n}\n// more functions\n',
    'notes.md': '# Notes\n\nstatus: draft\n',
  };
}

/** Deterministic filler of about `bytes` characters (a table of numbered rows). */
export function bigFileContent(bytes = 120_000): string {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const row = `row ${String(i).padStart(6, '0')}: ${((i * 2654435761) % 4294967296).toString(16).padStart(8, '0')} lorem ipsum dolor sit amet\n`;
    rows.push(row);
    size += row.length;
  }
  return rows.join('');
}

type Call = { name: string; arguments: Record<string, unknown> };

/**
 * How the slow `bash` steps record progress. `append` (`echo step >> log.txt`) is not idempotent: if
 * a kill lands mid-command and the command is run again, the line appears twice. `overwrite`
 * (`echo step > log-step.txt`) converges however often it runs.
 */
export type BashEffects = 'append' | 'overwrite';

/**
 * How the scenario's edits treat their anchor text. `keep-anchor`: `new` holds `old` (an edit run
 * twice applies twice); `replace-anchor`: `new` replaces `old` (a second run finds nothing to change).
 */
export type EditAnchors = 'keep-anchor' | 'replace-anchor';

function logCommand(effects: BashEffects, line: string): string {
  return effects === 'append' ? `echo ${line} >> log.txt` : `echo ${line} > log-${line}.txt`;
}

function steps(effects: BashEffects, anchors: EditAnchors): Array<{ text: string; calls: Call[] }> {
  const log = (line: string): string => logCommand(effects, line);
  const keep = anchors === 'keep-anchor';
  /** `old` → `added`, after the anchor (keep-anchor) or in its place. */
  const edit = (path: string, old: string, added: string): Call => ({
    name: 'edit',
    arguments: { path, old, new: keep ? `${old}${added}` : added },
  });
  const showLog = effects === 'append' ? 'cat log.txt' : 'cat log-*.txt';
  return [
    {
      text: 'I will start by generating the data table.',
      calls: [{ name: 'write', arguments: { path: 'data/table.txt', content: bigFileContent() } }],
    },
    {
      text: 'Recording progress.',
      calls: [{ name: 'bash', arguments: { command: `sleep 0.3 && ${log('step-one')}` } }],
    },
    {
      text: 'Adding an average function.',
      calls: [
        edit(
          'src/ledger.js',
          '// more functions\n',
          '\nexport function average(entries) {\n  return entries.length === 0 ? 0 : total(entries) / entries.length;\n}\n',
        ),
      ],
    },
    {
      text: 'Checking the table and logging.',
      calls: [
        {
          name: 'bash',
          arguments: { command: `sleep 0.4 && wc -l < data/table.txt && ${log('step-two')}` },
        },
      ],
    },
    {
      text: 'Writing a helper module.',
      calls: [
        {
          name: 'write',
          arguments: {
            path: 'src/format.js',
            content: 'export function money(n) {\n  return `$${n.toFixed(2)}`;\n}\n',
          },
        },
      ],
    },
    {
      text: 'Updating the notes and logging, in one go.',
      calls: [
        edit('notes.md', 'status: draft', keep ? ', reviewed' : 'status: reviewed'),
        { name: 'bash', arguments: { command: `sleep 0.3 && ${log('step-three')}` } },
      ],
    },
    {
      text: 'Importing the helper.',
      calls: [
        edit(
          'src/ledger.js',
          '// imports\n',
          "import { money } from './format.js';\n\nexport { money };\n\n",
        ),
      ],
    },
    {
      text: 'Final progress entry.',
      calls: [{ name: 'bash', arguments: { command: `sleep 0.2 && ${log('step-four')} && ${showLog}` } }],
    },
    {
      text: 'Checking the module parses.',
      calls: [{ name: 'bash', arguments: { command: 'node --check src/ledger.js && echo ok' } }],
    },
  ];
}

/** The long final answer (streamed as several frames). */
export const DURABILITY_FINAL_TEXT = `Done. ${'I generated data/table.txt, added average() and a money() helper, updated the notes and kept a progress log. '.repeat(4)}`;

export function createDurabilityPolicy(
  effects: BashEffects = 'append',
  anchors: EditAnchors = 'replace-anchor',
): ScriptedPolicy {
  const planned = steps(effects, anchors);
  return (request) => {
    const step = nextStep(request.messages, planned.length);
    const next = planned[step];
    if (!next) return { text: DURABILITY_FINAL_TEXT };
    const turn: ScriptedTurn = {
      text: next.text,
      toolCalls: next.calls.map((call, i) => ({
        id: `dur_${step}_${i}`,
        name: call.name,
        arguments: call.arguments,
      })),
    };
    return turn;
  };
}

export const durabilityPolicy: ScriptedPolicy = createDurabilityPolicy('append');

/**
 * The step to play next: one after the step whose tool call ids the last assistant message carries
 * (counting assistant messages would go wrong once older turns are compacted away).
 */
function nextStep(messages: readonly Message[], total: number): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'assistant') continue;
    const match = /^dur_(\d+)_/.exec(m.toolCalls[0]?.id ?? '');
    return match ? Number(match[1]) + 1 : total;
  }
  return 0;
}

/** Model responses in an uninterrupted run (tool steps plus the final answer). */
export const DURABILITY_MODEL_CALLS = steps('append', 'replace-anchor').length + 1;
