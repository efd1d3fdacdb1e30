import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verify } from '../auth/session.js';
import { findNotes } from '../db/query.js';

export function getNotes(req) {
  const user = verify(req.headers.token ?? '');
  return findNotes(req.query.owner);
}

export function getAttachment(req) {
  return readFileSync(join('/srv/attachments', req.query.name));
}
