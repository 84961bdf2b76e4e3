// Hand-written stand-in for the types.ts that `svc build` emits for ./spec.ts (same names, from
// generator/names.ts), so the client fixture compiles without running the types emitter.

export interface Author {
  readonly id: string;
  name: string;
}

/** A note. */
export interface Note {
  readonly id: string;
  title: string;
  body?: string;
  tags?: string[];
  author: Author;
  readonly createdAt: string;
}

export interface NoteInput {
  title: string;
  body?: string;
  tags?: string[];
}

export interface NotePatch {
  title?: string;
  body?: string;
}

export interface NoteList {
  items: Note[];
  nextCursor: string | null;
}

export interface ListNotesQuery {
  limit?: number;
  /** From `nextCursor`. */
  cursor?: string;
  tag?: string[];
  pinned?: boolean;
}
export type ListNotesResponse200 = NoteList;

export interface SearchNotesQuery {
  q: string;
}
export type SearchNotesResponse200 = NoteList;

export type CreateNoteBody = NoteInput;
export type CreateNoteResponse201 = Note;

export interface GetNoteParams {
  /** The note id. */
  id: string;
}
export type GetNoteResponse200 = Note;

export interface UpdateNoteParams {
  id: string;
}
export type UpdateNoteBody = NotePatch;
export type UpdateNoteResponse200 = Note;

export interface ReplaceNoteParams {
  id: string;
}
export interface ReplaceNoteBody {
  title: string;
  pinned?: boolean;
  [k: string]: unknown;
}
export type ReplaceNoteResponse200 = Note;

export interface DeleteNoteParams {
  id: string;
}
export type DeleteNoteResponse204 = void;

export interface VerifyEmailBody {
  token: string;
}
export type VerifyEmailResponse204 = void;

export type PingResponse200 = string;
