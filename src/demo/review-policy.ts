/**
 * The scripted model of `colony demo review` (examples/workflows/review.ts on examples/review-repo):
 * each explorer lists its area, reads every file in it, then answers with JSON risks. The api
 * explorer follows a call into src/db and reports the same SQL injection as the db explorer (the
 * merge de-duplicates it and ranks it first: two independent confirmations). The util explorer's
 * first answer uses a severity outside the schema, so the workflow's repair attempt corrects it.
 * Only the decisions are canned: the reads are real.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../model/providers/scripted.js';
import { toolCall as call, taskText, toolExchanges } from './policy-helpers.js';

interface DemoRisk {
  title: string;
  file: string;
  line: number;
  severity: string;
  evidence: string;
}

const SQL_INJECTION: DemoRisk = {
  title: 'SQL injection in findNotes',
  file: 'src/db/query.js',
  line: 4,
  severity: 'critical',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the quoted code is a template literal
  evidence: "`WHERE owner = '${owner}'` interpolates the caller's value into SQL; use a $1 parameter",
};

export const REVIEW_DEMO_RISKS: Record<string, DemoRisk[]> = {
  'src/auth': [
    {
      title: 'Hard-coded signing secret',
      file: 'src/auth/session.js',
      line: 2,
      severity: 'high',
      evidence:
        "`const SECRET = 'hunter2-prod-secret'` is committed; anyone with the code can forge sessions",
    },
    {
      title: 'Session MAC compared with == on a weak hash',
      file: 'src/auth/session.js',
      line: 10,
      severity: 'medium',
      evidence: '`mac == hash(...)`: a 32-bit non-cryptographic hash, compared without constant time',
    },
  ],
  'src/api': [
    {
      title: 'Notes returned without checking the session',
      file: 'src/api/notes.js',
      line: 7,
      severity: 'critical',
      evidence: '`const user = verify(...)` is never checked: any request reads any owner’s notes',
    },
    {
      title: 'Path traversal in getAttachment',
      file: 'src/api/notes.js',
      line: 12,
      severity: 'high',
      evidence: "`join('/srv/attachments', req.query.name)` accepts ../ and reads any file",
    },
    {
      ...SQL_INJECTION,
      title: 'Owner from the query string reaches SQL unescaped',
      evidence: 'owner flows into a string-built query',
    },
  ],
  'src/db': [
    SQL_INJECTION,
    {
      title: 'saveNote does not await the insert',
      file: 'src/db/query.js',
      line: 8,
      severity: 'medium',
      evidence: '`db.query(...)` without await: errors are lost and `saved: true` is returned regardless',
    },
  ],
  'src/util': [
    {
      title: 'Unbounded in-memory cache',
      file: 'src/util/cache.js',
      line: 1,
      severity: 'low',
      evidence: '`const entries = new Map()` grows without eviction (memory exhaustion under load)',
    },
  ],
};

export const reviewDemoPolicy: ScriptedPolicy = (request): ScriptedTurn => {
  const task = taskText(request.messages);
  const area = /Review the code under (\S+) for/.exec(task)?.[1];
  const risks = area ? REVIEW_DEMO_RISKS[area] : undefined;
  if (!area || !risks) return { text: '{"risks": []}' };
  const repairing = task.includes('# Your previous answer was not accepted');
  if (repairing) return { text: JSON.stringify({ risks }) };

  const calls = toolExchanges(request.messages);
  if (calls.length === 0) return call(`Listing ${area}.`, 'ls', { path: area });
  const files = filesOf(area, calls[0]?.result ?? '');
  const unread = files.filter((f) => !calls.some((c) => c.name === 'read' && c.path === f));
  const next = unread[0];
  if (next) return call(`Reading ${next}.`, 'read', { path: next });
  if (area === 'src/api' && !calls.some((c) => c.path === SQL_INJECTION.file))
    return call('findNotes passes owner on; following it into the db layer.', 'read', {
      path: SQL_INJECTION.file,
    });
  // The util explorer first answers with a severity the schema does not allow (repaired once).
  if (area === 'src/util')
    return { text: JSON.stringify({ risks: risks.map((r) => ({ ...r, severity: 'minor' })) }) };
  return { text: JSON.stringify({ risks }) };
};

/** The .js files of a listing of `area` (one name per line; folders end with /). */
function filesOf(area: string, listing: string): string[] {
  return listing
    .split('\n')
    .map((line) => line.trim())
    .filter((name) => name.endsWith('.js'))
    .map((name) => (name.startsWith(area) ? name : `${area}/${name}`));
}
