// Where notes live. Each belongs to a space: its author's own (personal notes, seen by no one else) or a
// team's (seen by every member). Every operation names the space, and a note of another space is as absent
// as one that never existed. The service keeps them in its database (notes.sql-store.ts); a test may give
// the handlers any other NoteStore.
import type { Note, NoteInput, NotePatch } from '../../../generated/types.js';

/** Whose notes a request reads and writes. */
export type NoteSpace = { kind: 'user'; userId: string } | { kind: 'team'; teamId: string };

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
  list(space: NoteSpace, options: { limit: number; after?: NotePosition }): Promise<NotePage>;
  /** `author`: the signed-in user writing the note. */
  create(space: NoteSpace, author: string, input: NoteInput): Promise<Note>;
  get(space: NoteSpace, id: string): Promise<Note | undefined>;
  update(space: NoteSpace, id: string, patch: NotePatch): Promise<Note | undefined>;
  delete(space: NoteSpace, id: string): Promise<boolean>;
}
