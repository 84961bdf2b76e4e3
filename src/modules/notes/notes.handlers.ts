// The handlers of the Note routes declared in svc.config.yaml; types come from generated/routes.ts. Every
// route has `meta.auth: true`, so the auth guard put a user on the context before a handler runs. A request
// naming a team (x-tenant-id) works on that team's notes, which the tenancy guard let only its members reach;
// without one, on the caller's personal notes. Deleting a team's note needs the permission notes:delete.
import { errors } from '../../../generated/errors.js';
import type { Handlers } from '../../../generated/routes.js';
import type { PublicUser } from 'svckit/auth';
import { svcErrors, type RequestContext } from 'svckit/core';
import { requirePermission, tenantOf } from 'svckit/tenancy';
import { decodeCursor, encodeCursor } from './notes.cursor.js';
import type { NoteSpace, NoteStore } from './notes.store.js';

export type NoteHandlers = Pick<
  Handlers,
  'listNotes' | 'createNote' | 'getNote' | 'updateNote' | 'deleteNote'
>;

/** The signed-in user's id: the author of every note the request writes. */
function userOf(context: RequestContext): string {
  const user = context.user as PublicUser | undefined;
  // The guard makes this unreachable; answering AUTH_REQUIRED keeps a misconfigured route from sharing notes.
  if (!user) throw svcErrors.AUTH_REQUIRED();
  return user.id;
}

/** The team the request names (its membership confirmed), else the caller's personal notes. */
function spaceOf(context: RequestContext): NoteSpace {
  const userId = userOf(context);
  const team = tenantOf(context);
  return team === undefined ? { kind: 'user', userId } : { kind: 'team', teamId: team.id };
}

export function createNoteHandlers(store: NoteStore): NoteHandlers {
  return {
    async listNotes({ query, context }) {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const page = await store.list(spaceOf(context), { limit: query.limit ?? 20, after });
      const last = page.items.at(-1);
      return { items: page.items, nextCursor: page.hasMore && last ? encodeCursor(last) : null };
    },

    async createNote({ body, context }) {
      return store.create(spaceOf(context), userOf(context), body);
    },

    async getNote({ params, context }) {
      const note = await store.get(spaceOf(context), params.id);
      if (!note) throw errors.NOTE_NOT_FOUND();
      return note;
    },

    async updateNote({ params, body, context }) {
      const note = await store.update(spaceOf(context), params.id, body);
      if (!note) throw errors.NOTE_NOT_FOUND();
      return note;
    },

    async deleteNote({ params, context }) {
      const space = spaceOf(context);
      // Asked before the note is looked up, so a member without the permission learns nothing of which exist.
      if (space.kind === 'team') await requirePermission(context, 'notes:delete');
      if (!(await store.delete(space, params.id))) throw errors.NOTE_NOT_FOUND();
    },
  };
}
