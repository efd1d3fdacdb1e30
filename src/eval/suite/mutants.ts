/**
 * Candidate mutants of one JS/TS source file, found with the TypeScript compiler's parser (no type
 * check, so plain JavaScript works too): a comparison's boundary or equality flipped, `&&` and `||`
 * swapped, a numeric literal off by one, a condition negated. Each is a text replacement of one span,
 * so applying it and reversing it are exact.
 */
import type { Node, NumericLiteral, ScriptKind } from 'typescript';

/** The compiler, loaded by the caller (it is a dev dependency: absent from some installs). */
export type Compiler = typeof import('typescript');

export type MutantKind = 'comparison' | 'logical' | 'off-by-one' | 'negate';

export interface Mutant {
  /** Path of the file, relative to the repository. */
  file: string;
  kind: MutantKind;
  /** The replaced span [start, end) of the file's text. */
  start: number;
  end: number;
  original: string;
  replacement: string;
  /** 1-based line of the span, for messages. */
  line: number;
}

const FLIPS: Record<string, string> = {
  '<': '<=',
  '<=': '<',
  '>': '>=',
  '>=': '>',
  '===': '!==',
  '!==': '===',
  '==': '!=',
  '!=': '==',
  '&&': '||',
  '||': '&&',
};

export function findMutants(ts: Compiler, file: string, text: string): Mutant[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(ts, file));
  const mutants: Mutant[] = [];
  const add = (kind: MutantKind, start: number, end: number, replacement: string) => {
    const line = source.getLineAndCharacterOfPosition(start).line + 1;
    mutants.push({ file, kind, start, end, original: text.slice(start, end), replacement, line });
  };
  const visit = (node: Node): void => {
    // Types are erased at run time: a mutant there could never be killed by a test.
    if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isBinaryExpression(node)) {
      const operator = node.operatorToken;
      const flipped = FLIPS[operator.getText(source)];
      if (flipped) {
        const kind = flipped === '&&' || flipped === '||' ? 'logical' : 'comparison';
        add(kind, operator.getStart(source), operator.getEnd(), flipped);
      }
    }
    if (ts.isNumericLiteral(node) && !isPropertyName(ts, node)) {
      const value = Number(node.text);
      if (Number.isSafeInteger(value))
        add('off-by-one', node.getStart(source), node.getEnd(), String(value + 1));
    }
    const condition =
      ts.isIfStatement(node) || ts.isWhileStatement(node)
        ? node.expression
        : ts.isConditionalExpression(node)
          ? node.condition
          : undefined;
    if (condition)
      add('negate', condition.getStart(source), condition.getEnd(), `!(${condition.getText(source)})`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return mutants;
}

/** `text` with the mutants applied (they must not overlap). */
export function applyMutants(text: string, mutants: readonly Mutant[]): string {
  let out = text;
  for (const m of [...mutants].sort((a, b) => b.start - a.start))
    out = out.slice(0, m.start) + m.replacement + out.slice(m.end);
  return out;
}

export function describeMutant(m: Mutant): string {
  return `${m.file}:${m.line}: ${m.kind} \`${m.original}\` → \`${m.replacement}\``;
}

/** A literal that names a property (`{ 1: x }`, a class member, an enum member) is not a value. */
function isPropertyName(ts: Compiler, node: NumericLiteral): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isEnumMember(parent)) &&
    parent.name === node
  );
}

function scriptKind(ts: Compiler, file: string): ScriptKind {
  if (/\.tsx$/.test(file)) return ts.ScriptKind.TSX;
  if (/\.[cm]?ts$/.test(file)) return ts.ScriptKind.TS;
  if (/\.jsx$/.test(file)) return ts.ScriptKind.JSX;
  return ts.ScriptKind.JS;
}
