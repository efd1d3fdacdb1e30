/**
 * What a lead-written program may not touch, found in its syntax tree before it runs: the clock,
 * randomness, files, the network, the process, timers and code from strings. A program that reads
 * them would make different calls on resume (docs/workflows.md, "The determinism rule"); the
 * evaluator (evaluate.ts) has none of them either, so this is the clear message, not the fence.
 */
import type * as TS from 'typescript';

const CLOCK = 'a workflow program may not read the clock (a resumed program must make the same calls)';
const RANDOM = 'a workflow program may not use random numbers (a resumed program must make the same calls)';
const HOST =
  'a workflow program has no files, network or process: let an agent step read or fetch it (its answer is logged)';
const TIMERS = 'a workflow program has no timers: steps take `timeout` and `retries` options';
const CODE = 'a workflow program may not run code from strings';

/** Global names and why each is refused. */
export const FORBIDDEN_GLOBALS: ReadonlyMap<string, string> = new Map([
  ['Date', CLOCK],
  ['performance', CLOCK],
  ['Intl', CLOCK],
  ['require', HOST],
  ['process', HOST],
  ['fetch', HOST],
  ['XMLHttpRequest', HOST],
  ['WebSocket', HOST],
  ['Buffer', HOST],
  ['setTimeout', TIMERS],
  ['setInterval', TIMERS],
  ['setImmediate', TIMERS],
  ['eval', CODE],
  ['Function', CODE],
  ['WebAssembly', CODE],
]);

export interface Finding {
  line: number;
  column: number;
  message: string;
}

/** Every use of a refused global (not one the program declared itself), Math.random and import(). */
export function findForbidden(ts: typeof TS, file: TS.SourceFile, checker: TS.TypeChecker): Finding[] {
  const found: Finding[] = [];
  const at = (node: TS.Node, message: string) => {
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push({ line: line + 1, column: character + 1, message });
  };
  const declaredHere = (node: TS.Identifier): boolean =>
    (checker.getSymbolAtLocation(node)?.declarations ?? []).some((d) => d.getSourceFile() === file);
  const visit = (node: TS.Node): void => {
    if (ts.isIdentifier(node)) {
      const why = FORBIDDEN_GLOBALS.get(node.text);
      const parent = node.parent;
      const isName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isQualifiedName(parent) && parent.right === node);
      if (why && !isName && !declaredHere(node)) at(node, `${node.text}: ${why}`);
    } else if (
      (ts.isPropertyAccessExpression(node) && node.name.text === 'random') ||
      (ts.isElementAccessExpression(node) &&
        ts.isStringLiteralLike(node.argumentExpression) &&
        node.argumentExpression.text === 'random')
    ) {
      if (ts.isIdentifier(node.expression) && node.expression.text === 'Math')
        at(node, `Math.random: ${RANDOM}`);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      at(node, `import(): ${HOST}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
