// Where notes live, each with its owner (the signed-in user who wrote it): every operation names the owner,
// and another user's note is as absent as one that never existed. In memory for now (bounded: creating past
// MAX_NOTES answers NOTE_STORE_FULL rather than silently evicting someone's note); the SQL store replaces it
// when shared stores land.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/errors.js';
import type { Note, NoteInput, NotePatch } from '../../../generated/types.js';

export const MAX_NOTES = 10_000;

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

/** Newest first; equal timestamps ordered by id, descending, so the order is total and pages never overlap. */
function isOlder(note: NotePosition, than: NotePosition): boolean {
  return note.createdAt < than.createdAt || (note.createdAt === than.createdAt && note.id < than.id);
}

export class MemoryNoteStore implements NoteStore {
  private readonly notes = new Map<string, { owner: string; note: Note }>();
  /** Creation time of the newest note, in ms; the next one is at least 1 ms later. */
  private lastCreated = 0;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async list(owner: string, { limit, after }: { limit: number; after?: NotePosition }): Promise<NotePage> {
    const ordered = [...this.notes.values()]
      .filter((entry) => entry.owner === owner)
      .map((entry) => entry.note)
      .sort((a, b) => (isOlder(a, b) ? 1 : isOlder(b, a) ? -1 : 0));
    const start = after ? ordered.findIndex((note) => isOlder(note, after)) : 0;
    if (start < 0) return { items: [], hasMore: false };
    const items = ordered.slice(start, start + limit);
    return { items, hasMore: start + limit < ordered.length };
  }

  async create(owner: string, input: NoteInput): Promise<Note> {
    if (this.notes.size >= MAX_NOTES) throw errors.NOTE_STORE_FULL();
    // Strictly increasing timestamps keep "newest first" true for notes created within one millisecond
    // (random ids would otherwise order them by chance).
    this.lastCreated = Math.max(this.clock().getTime(), this.lastCreated + 1);
    const note: Note = {
      id: randomUUID(),
      title: input.title,
      createdAt: new Date(this.lastCreated).toISOString(),
    };
    if (input.body !== undefined) note.body = input.body;
    this.notes.set(note.id, { owner, note });
    return note;
  }

  async get(owner: string, id: string): Promise<Note | undefined> {
    const entry = this.notes.get(id);
    return entry?.owner === owner ? entry.note : undefined;
  }

  async update(owner: string, id: string, patch: NotePatch): Promise<Note | undefined> {
    const note = await this.get(owner, id);
    if (!note) return undefined;
    const updated: Note = { ...note, ...patch };
    this.notes.set(id, { owner, note: updated });
    return updated;
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return (await this.get(owner, id)) !== undefined && this.notes.delete(id);
  }
}
