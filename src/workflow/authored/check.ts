/**
 * Type-checks a program the lead wrote, with the `typescript` package, against the declaration of
 * the `w` API (declaration.ts): a real check (strict), not only transpiling. The compiler host is in
 * memory — the program and the declaration are strings; only TypeScript's own lib files (ES2022, no
 * DOM, no Node types) are read, once per process. The problems (line:col of the program as written,
 * at most MAX_PROBLEMS) go back to the lead so it can repair; a clean program comes back as the
 * JavaScript the evaluator runs.
 */
import { dirname } from 'node:path';
import type * as TS from 'typescript';
import { err, ok, type Result } from '../../lang/result.js';
import {
  DECLARATION_FILE,
  PROGRAM_FILE,
  PROGRAM_HEAD,
  PROGRAM_TAIL,
  WORKFLOW_DECLARATION,
} from './declaration.js';
import { type Finding, FORBIDDEN_GLOBALS, findForbidden } from './forbidden.js';

export const MAX_PROBLEMS = 10;

export interface CheckedProgram {
  /** A script whose completion value is the program function `(w) => Promise<result>`. */
  js: string;
}

export type CheckProblem =
  | { kind: 'unavailable'; message: string }
  | { kind: 'errors'; problems: Finding[]; total: number; forbidden: boolean };

const libFiles = new Map<string, TS.SourceFile | undefined>();
let declaration: TS.SourceFile | undefined;

export async function checkProgram(source: string): Promise<Result<CheckedProgram, CheckProblem>> {
  let ts: typeof TS;
  try {
    ts = (await import('typescript')).default as typeof TS;
  } catch {
    return err({
      kind: 'unavailable',
      message: 'run_workflow needs the typescript package (npm i typescript)',
    });
  }
  const options: TS.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleDetection: ts.ModuleDetectionKind.Legacy,
    lib: ['lib.es2022.d.ts'],
    types: [],
    noEmitOnError: true,
    removeComments: false,
  };
  const defaultLib = ts.getDefaultLibFilePath(options);
  const libDir = dirname(defaultLib);
  const text = `${PROGRAM_HEAD}\n${source}\n${PROGRAM_TAIL}\n`;
  const inLibDir = (name: string) => dirname(name) === libDir;
  let js = '';
  const host: TS.CompilerHost = {
    getSourceFile(name, languageVersion) {
      if (name === PROGRAM_FILE) return ts.createSourceFile(name, text, languageVersion, true);
      if (name === DECLARATION_FILE) {
        declaration ??= ts.createSourceFile(name, WORKFLOW_DECLARATION, languageVersion, true);
        return declaration;
      }
      if (!inLibDir(name)) return undefined;
      if (!libFiles.has(name)) {
        const content = ts.sys.readFile(name);
        libFiles.set(
          name,
          content === undefined ? undefined : ts.createSourceFile(name, content, languageVersion),
        );
      }
      return libFiles.get(name);
    },
    getDefaultLibFileName: () => defaultLib,
    getDefaultLibLocation: () => libDir,
    writeFile: (name, data) => {
      if (name.endsWith('.js')) js = data;
    },
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) =>
      name === PROGRAM_FILE || name === DECLARATION_FILE || (inLibDir(name) && ts.sys.fileExists(name)),
    readFile: (name) => (inLibDir(name) ? ts.sys.readFile(name) : undefined),
    directoryExists: (name) => name === '/' || name === libDir,
    getDirectories: () => [],
  };
  const program = ts.createProgram({ rootNames: [DECLARATION_FILE, PROGRAM_FILE], options, host });
  const file = program.getSourceFile(PROGRAM_FILE);
  if (!file) return err({ kind: 'unavailable', message: 'the program could not be parsed' });
  // The head line is ours: the program's own lines start at line 2.
  const shift = (f: Finding): Finding => ({ ...f, line: f.line - 1 });
  const forbidden = findForbidden(ts, file, program.getTypeChecker()).map(shift);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => findingOf(ts, d))
    .map(shift)
    // "Cannot find name 'require'" says less than the forbidden finding at the same place.
    .filter((d) => !forbidden.some((f) => f.line === d.line && f.column === d.column))
    .filter((d) => !isRefusedName(d.message));
  const problems = [...forbidden, ...diagnostics];
  if (problems.length > 0)
    return err({
      kind: 'errors',
      problems: problems.slice(0, MAX_PROBLEMS),
      total: problems.length,
      forbidden: forbidden.length > 0,
    });
  program.emit(file);
  if (js === '') return err({ kind: 'unavailable', message: 'the program compiled to nothing' });
  return ok({ js: `${js}\nprogram;\n` });
}

function findingOf(ts: typeof TS, d: TS.Diagnostic): Finding {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return { line: 1, column: 1, message };
  if (d.file.fileName !== PROGRAM_FILE)
    return { line: 1, column: 1, message: `${d.file.fileName}: ${message}` };
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return { line: line + 1, column: character + 1, message };
}

function isRefusedName(message: string): boolean {
  const name = /^Cannot find name '([^']+)'/.exec(message)?.[1];
  return name !== undefined && FORBIDDEN_GLOBALS.has(name);
}

/** The problems as the lead reads them: `line:col message`, one a line. */
export function renderProblems(problem: CheckProblem): string {
  if (problem.kind === 'unavailable') return problem.message;
  const lines = problem.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
  if (problem.total > problem.problems.length)
    lines.push(`… and ${problem.total - problem.problems.length} more`);
  return lines.join('\n');
}
