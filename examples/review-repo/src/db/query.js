import { db } from './pool.js';

export function findNotes(owner) {
  return db.query(`SELECT * FROM notes WHERE owner = '${owner}'`);
}

export async function saveNote(note) {
  db.query('INSERT INTO notes (owner, body) VALUES ($1, $2)', [note.owner, note.body]);
  return { saved: true };
}
