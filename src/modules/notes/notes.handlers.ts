// The handlers of the Note routes declared in svc.config.yaml; types come from generated/routes.ts.
import { errors } from '../../../generated/errors.js';
import type { Handlers } from '../../../generated/routes.js';
import { decodeCursor, encodeCursor } from './notes.cursor.js';
import type { NoteStore } from './notes.store.js';

export type NoteHandlers = Pick<
  Handlers,
  'listNotes' | 'createNote' | 'getNote' | 'updateNote' | 'deleteNote'
>;

export function createNoteHandlers(store: NoteStore): NoteHandlers {
  return {
    async listNotes({ query }) {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const page = await store.list({ limit: query.limit ?? 20, after });
      const last = page.items.at(-1);
      return { items: page.items, nextCursor: page.hasMore && last ? encodeCursor(last) : null };
    },

    async createNote({ body }) {
      return store.create(body);
    },

    async getNote({ params }) {
      const note = await store.get(params.id);
      if (!note) throw errors.NOTE_NOT_FOUND();
      return note;
    },

    async updateNote({ params, body }) {
      const note = await store.update(params.id, body);
      if (!note) throw errors.NOTE_NOT_FOUND();
      return note;
    },

    async deleteNote({ params }) {
      if (!(await store.delete(params.id))) throw errors.NOTE_NOT_FOUND();
    },
  };
}
