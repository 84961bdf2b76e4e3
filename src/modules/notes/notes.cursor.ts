// List cursors: the position of the last note of a page, base64url-encoded. Opaque to clients; anything
// that does not decode to a valid position answers NOTE_CURSOR_INVALID instead of a wrong page.
import { errors } from '../../../generated/errors.js';
import type { NotePosition } from './notes.store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeCursor(position: NotePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): NotePosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw errors.NOTE_CURSOR_INVALID();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) throw errors.NOTE_CURSOR_INVALID();
  const [createdAt, id] = decoded as unknown[];
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)))
    throw errors.NOTE_CURSOR_INVALID();
  if (typeof id !== 'string' || !UUID.test(id)) throw errors.NOTE_CURSOR_INVALID();
  return { createdAt, id };
}
