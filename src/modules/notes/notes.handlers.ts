// The handlers of the Note routes declared in svc.config.yaml; types come from generated/routes.ts. Every
// route has `meta.auth: true`, so the auth guard put a user on the context before a handler runs.
import { errors } from '../../../generated/errors.js';
import type { Handlers } from '../../../generated/routes.js';
import type { PublicUser } from 'svckit/auth';
import { svcErrors, type RequestContext } from 'svckit/core';
import { decodeCursor, encodeCursor } from './notes.cursor.js';
import type { NoteStore } from './notes.store.js';

export type NoteHandlers = Pick<
  Handlers,
  'listNotes' | 'createNote' | 'getNote' | 'updateNote' | 'deleteNote'
>;

/** The signed-in user's id: the owner of every note the request touches. */
function ownerOf(context: RequestContext): string {
  const user = context.user as PublicUser | undefined;
  // The guard makes this unreachable; answering AUTH_REQUIRED keeps a misconfigured route from sharing notes.
  if (!user) throw svcErrors.AUTH_REQUIRED();
  return user.id;
}

export function createNoteHandlers(store: NoteStore): NoteHandlers {
  return {
    async listNotes({ query, context }) {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const page = await store.list(ownerOf(context), { limit: query.limit ?? 20, after });
      const last = page.items.at(-1);
      return { items: page.items, nextCursor: page.hasMore && last ? encodeCursor(last) : null };
    },

    async createNote({ body, context }) {
      return store.create(ownerOf(context), body);
    },

    async getNote({ params, context }) {
      const note = await store.get(ownerOf(context), params.id);
      if (!note) throw errors.NOTE_NOT_FOUND();
      return note;
    },

    async updateNote({ params, body, context }) {
      const note = await store.update(ownerOf(context), params.id, body);
      if (!note) throw errors.NOTE_NOT_FOUND();
      return note;
    },

    async deleteNote({ params, context }) {
      if (!(await store.delete(ownerOf(context), params.id))) throw errors.NOTE_NOT_FOUND();
    },
  };
}
