// Where notes live, each with its owner (the signed-in user who wrote it): every operation names the owner,
// and another user's note is as absent as one that never existed. The service keeps them in its database
// (notes.sql-store.ts); a test may give the handlers any other NoteStore.
import type { Note, NoteInput, NotePatch } from '../../../generated/types.js';

/** A position in the newest-first order: notes strictly after it are older. */
export interface NotePosition {
  createdAt: string;
  id: string;
}

export interface NotePage {
  items: Note[];
  /** True when older notes follow the last item. */
  hasMore: boolean;
}

export interface NoteStore {
  list(owner: string, options: { limit: number; after?: NotePosition }): Promise<NotePage>;
  create(owner: string, input: NoteInput): Promise<Note>;
  get(owner: string, id: string): Promise<Note | undefined>;
  update(owner: string, id: string, patch: NotePatch): Promise<Note | undefined>;
  delete(owner: string, id: string): Promise<boolean>;
}
