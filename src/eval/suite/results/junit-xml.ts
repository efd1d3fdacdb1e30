/**
 * JUnit XML (Node's `--test-reporter=junit`, pytest `--junitxml`, Maven Surefire, jest-junit): a
 * `<testcase>` is a result, failed when it holds `<failure>` or `<error>`, skipped when it holds
 * `<skipped>`. Its full name is the enclosing `<testsuite>` names and its own (Node's describe blocks
 * become nested suites, so the names match the TAP parser's); its aliases are the runners' usual ids:
 * `classname.name`, `classname::name` and pytest's `file::Class::name`.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { err, ok, type Result } from '../../../lang/result.js';
import { fullName, type TestResult } from './types.js';

interface XmlNode {
  testsuite?: XmlNode[];
  testcase?: XmlNode[];
  [key: string]: unknown;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Names stay strings ("1" is not a number), and suites and cases are lists even when single.
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (tag) => tag === 'testsuite' || tag === 'testcase',
});

export function parseJunitXml(text: string): Result<TestResult[]> {
  if (text.trim() === '') return err('empty JUnit XML');
  // The parser itself accepts a file cut short (a verify that timed out mid-write): check first.
  // XMLValidator is marked deprecated in favour of a separate package; it is the same checker.
  const valid = XMLValidator.validate(text);
  if (valid !== true) return err(`invalid JUnit XML at line ${valid.err.line}: ${valid.err.msg}`);
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (e) {
    return err(`invalid JUnit XML: ${(e as Error).message}`);
  }
  const root = doc.testsuites ?? (doc.testsuite ? { testsuite: doc.testsuite } : undefined);
  if (root === undefined) return err('no <testsuites> or <testsuite> element in the JUnit XML');
  const results: TestResult[] = [];
  collect(asNode(root), [], results);
  return ok(results);
}

/** An element with neither attributes nor children (`<testcase></testcase>`) parses as ''. */
function asNode(value: unknown): XmlNode {
  return typeof value === 'object' && value !== null ? (value as XmlNode) : {};
}

function collect(node: XmlNode, path: string[], into: TestResult[]): void {
  for (const testcase of node.testcase ?? []) into.push(resultOf(asNode(testcase), path));
  for (const item of node.testsuite ?? []) {
    const suite = asNode(item);
    const name = attr(suite, 'name');
    collect(suite, name ? [...path, name] : path, into);
  }
}

function resultOf(testcase: XmlNode, path: string[]): TestResult {
  const name = attr(testcase, 'name') ?? '';
  const status =
    'failure' in testcase || 'error' in testcase ? 'fail' : 'skipped' in testcase ? 'skip' : 'pass';
  const classname = attr(testcase, 'classname');
  const file = attr(testcase, 'file');
  const aliases = new Set<string>();
  if (classname) {
    aliases.add(`${classname}.${name}`);
    aliases.add(`${classname}::${name}`);
  }
  if (file) aliases.add(pytestId(file, classname, name));
  const full = fullName([...path, name]);
  aliases.delete(full);
  return { name: full, status, aliases: [...aliases] };
}

/**
 * pytest's node id (`tests/test_x.py::TestFoo::test_bar`, as SWE-bench lists tests) from its JUnit
 * attributes (`file` is written with `-o junit_family=xunit1`): the class part is what the classname
 * holds beyond the file's module path.
 */
function pytestId(file: string, classname: string | undefined, name: string): string {
  const modulePath = file.replace(/\.py$/, '').replaceAll('/', '.');
  const rest = classname?.startsWith(`${modulePath}.`) ? classname.slice(modulePath.length + 1) : '';
  return [file, ...(rest ? rest.split('.') : []), name].join('::');
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}
