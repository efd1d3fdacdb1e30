/** Per-test result parsers: one per verify output format; a parse error is a value, never a throw. */
import type { Result } from '../../../lang/result.js';
import type { ResultFormat } from '../task.js';
import { parseJestJson } from './jest-json.js';
import { parseJunitXml } from './junit-xml.js';
import { parseNodeTap } from './node-tap.js';
import type { TestResult } from './types.js';

export { parseJestJson } from './jest-json.js';
export { parseJunitXml } from './junit-xml.js';
export { parseNodeTap } from './node-tap.js';
export { fullName, type TestResult, type TestStatus } from './types.js';

export function parseResults(format: ResultFormat, text: string): Result<TestResult[]> {
  switch (format) {
    case 'node-test-tap':
      return parseNodeTap(text);
    case 'junit-xml':
      return parseJunitXml(text);
    case 'jest-json':
      return parseJestJson(text);
  }
}
