// Where notes live. In memory for now (bounded: creating past MAX_NOTES answers NOTE_STORE_FULL rather
// than silently evicting someone's note); the SQL store replaces it when shared stores land.
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
  list(options: { limit: number; after?: NotePosition }): Promise<NotePage>;
  create(input: NoteInput): Promise<Note>;
  get(id: string): Promise<Note | undefined>;
  update(id: string, patch: NotePatch): Promise<Note | undefined>;
  delete(id: string): Promise<boolean>;
}

/** Newest first; equal timestamps ordered by id, descending, so the order is total and pages never overlap. */
function isOlder(note: NotePosition, than: NotePosition): boolean {
  return note.createdAt < than.createdAt || (note.createdAt === than.createdAt && note.id < than.id);
}

export class MemoryNoteStore implements NoteStore {
  private readonly notes = new Map<string, Note>();
  /** Creation time of the newest note, in ms; the next one is at least 1 ms later. */
  private lastCreated = 0;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async list({ limit, after }: { limit: number; after?: NotePosition }): Promise<NotePage> {
    const ordered = [...this.notes.values()].sort((a, b) => (isOlder(a, b) ? 1 : isOlder(b, a) ? -1 : 0));
    const start = after ? ordered.findIndex((note) => isOlder(note, after)) : 0;
    if (start < 0) return { items: [], hasMore: false };
    const items = ordered.slice(start, start + limit);
    return { items, hasMore: start + limit < ordered.length };
  }

  async create(input: NoteInput): Promise<Note> {
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
    this.notes.set(note.id, note);
    return note;
  }

  async get(id: string): Promise<Note | undefined> {
    return this.notes.get(id);
  }

  async update(id: string, patch: NotePatch): Promise<Note | undefined> {
    const note = this.notes.get(id);
    if (!note) return undefined;
    const updated: Note = { ...note, ...patch };
    this.notes.set(id, updated);
    return updated;
  }

  async delete(id: string): Promise<boolean> {
    return this.notes.delete(id);
  }
}
