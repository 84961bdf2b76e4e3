// The notes in the service's database (table `notes`, migrations/), through a repository scoped by space: a
// note of another user, or of a team the request is not in, is never read, changed or listed. Newest first, ties by id; the
// creation time is set here, in whole milliseconds, as the API shows it.
import { errors } from '../../../generated/errors.js';
import type { Note, NoteInput, NotePatch } from '../../../generated/types.js';
import { repository, type ScopedRepository } from 'svckit/data';
import type { SqlQueryable } from 'svckit/stores';
import type { NotePage, NotePosition, NoteSpace, NoteStore } from './notes.store.js';

/** A row of `notes` as the repository answers it (created_at is a timestamptz: a Date). */
interface NoteRow {
  id: string;
  /** `user:<id>` or `team:<tenant id>`. */
  space: string;
  /** The author. */
  owner: string;
  title: string;
  body: string | null;
  createdAt: Date;
}

/** The space's key in the `space` column. */
function spaceKey(space: NoteSpace): string {
  return space.kind === 'user' ? `user:${space.userId}` : `team:${space.teamId}`;
}

function toNote(row: NoteRow): Note {
  const note: Note = { id: row.id, title: row.title, createdAt: row.createdAt.toISOString() };
  if (row.body !== null) note.body = row.body;
  if (row.space.startsWith('team:')) note.teamId = row.space.slice('team:'.length);
  return note;
}

export class SqlNoteStore implements NoteStore {
  private readonly notes: ScopedRepository<NoteRow>;
  /** Creation time of this process's newest note, in ms; the next one is at least 1 ms later. */
  private lastCreated = 0;

  /** `sql`: the stores' client (`stores.sql`). */
  constructor(
    sql: SqlQueryable | undefined,
    private readonly clock: () => Date = () => new Date(),
  ) {
    if (sql === undefined) {
      throw new Error(
        'The notes need a database, and stores.sql is undefined: with stores.database: memory, the app must have its migrations folder (migrations/0001-notes.sql).',
      );
    }
    this.notes = repository<NoteRow>(sql, {
      table: 'notes',
      columns: ['id', 'space', 'owner', 'title', 'body', 'createdAt'],
      scope: 'space',
      order: { by: 'createdAt', direction: 'desc' },
    });
  }

  async list(space: NoteSpace, { limit, after }: { limit: number; after?: NotePosition }): Promise<NotePage> {
    try {
      const start = after && { createdAt: new Date(after.createdAt), id: after.id };
      const page = await this.notes.list(spaceKey(space), { limit, after: start });
      return { items: page.items.map(toNote), hasMore: page.nextCursor !== null };
    } catch (error) {
      // A position the database cannot hold (a date past its range): the cursor was forged.
      if ((error as { code?: unknown }).code === 'DATA_CURSOR_INVALID') throw errors.NOTE_CURSOR_INVALID();
      throw error;
    }
  }

  async create(space: NoteSpace, author: string, input: NoteInput): Promise<Note> {
    // Strictly increasing times keep "newest first" true for notes this process creates within one
    // millisecond (ids would otherwise order them by chance).
    this.lastCreated = Math.max(this.clock().getTime(), this.lastCreated + 1);
    const row = await this.notes.insert(spaceKey(space), {
      owner: author,
      title: input.title,
      body: input.body ?? null,
      createdAt: new Date(this.lastCreated),
    });
    return toNote(row);
  }

  async get(space: NoteSpace, id: string): Promise<Note | undefined> {
    const row = await this.notes.get(spaceKey(space), id);
    return row && toNote(row);
  }

  async update(space: NoteSpace, id: string, patch: NotePatch): Promise<Note | undefined> {
    const row = await this.notes.update(spaceKey(space), id, { title: patch.title, body: patch.body });
    return row && toNote(row);
  }

  delete(space: NoteSpace, id: string): Promise<boolean> {
    return this.notes.delete(spaceKey(space), id);
  }
}
