// Type-level tests of the generated client (./client.ts). Never run: it only has to compile. Each
// `@ts-expect-error` proves a wrong input or a wrong narrowing is refused (an unused one fails compilation).
import { createClient } from './client.js';
import type * as T from './types.js';

/** Compiles only when `value` is assignable to `Expected`. */
function expectType<Expected>(_value: Expected): void {}

// @ts-expect-error baseUrl is required
createClient({});
createClient({ baseUrl: 'http://127.0.0.1:1', headers: async () => ({ authorization: 'Bearer t' }) });
createClient({ baseUrl: 'http://127.0.0.1:1', headers: [['x-tenant-id', 'a']], fetch: globalThis.fetch });

export async function inputs(client: ReturnType<typeof createClient>): Promise<void> {
  // @ts-expect-error params are required on a route with path parameters
  await client.getNote();
  // @ts-expect-error params are required on a route with path parameters
  await client.getNote({});
  // @ts-expect-error params are typed by the route
  await client.getNote({ params: { noteId: 'x' } });
  // @ts-expect-error a route with a required query property needs the query
  await client.searchNotes();
  // @ts-expect-error query values are typed
  await client.listNotes({ query: { limit: 'ten' } });
  // @ts-expect-error a required body must be given
  await client.createNote({});
  // @ts-expect-error the body is typed
  await client.createNote({ body: { title: 1 } });
  // @ts-expect-error a route without a body takes none
  await client.getNote({ params: { id: 'x' }, body: {} });
  // @ts-expect-error there is no method for an undeclared route
  await client.nope();

  // Optional parts may be left out; per-call headers and a signal are always accepted.
  await client.listNotes();
  await client.ping();
  await client.replaceNote({ params: { id: 'x' } });
  await client.listNotes({ query: { tag: ['a', 'b'], pinned: true }, headers: { 'x-a': '1' } });
  await client.getNote({ params: { id: 'x' }, signal: new AbortController().signal });
}

export async function results(client: ReturnType<typeof createClient>): Promise<void> {
  const note = await client.getNote({ params: { id: 'x' } });
  // @ts-expect-error data exists only once `ok` is checked
  expectType<unknown>(note.data);
  if (note.ok) {
    expectType<T.Note>(note.data);
    expectType<200>(note.status);
    expectType<Headers>(note.headers);
  } else if (note.error.code === 'NOTE_NOT_FOUND') {
    expectType<string>(note.error.message);
    expectType<unknown>(note.error.details);
    // @ts-expect-error only the validation error carries issues
    expectType<unknown>(note.error.issues);
  } else if (note.error.code === 'HTTP_VALIDATION') {
    expectType<'body' | 'query' | 'params'>(note.error.part);
    expectType<{ path: string; message: string }[]>(note.error.issues);
  } else if (note.unexpected) {
    expectType<number>(note.status);
    expectType<unknown>(note.body);
    expectType<'UNEXPECTED_RESPONSE'>(note.error.code);
  }

  // @ts-expect-error getNote never answers NOTE_STORE_FULL, so the comparison cannot be true
  if (!note.ok && note.error.code === 'NOTE_STORE_FULL') return;

  // The union of codes is exactly what the route can answer: the switch is exhaustive.
  if (!note.ok) {
    switch (note.error.code) {
      case 'HTTP_VALIDATION':
      case 'AUTH_REQUIRED':
      case 'AUTH_TOKEN_EXPIRED':
      case 'AUTH_TOKEN_INVALID':
      case 'NOTE_NOT_FOUND':
      case 'INTERNAL_ERROR':
      case 'UNEXPECTED_RESPONSE':
        break;
      default:
        expectType<never>(note.error);
    }
  }

  // Narrowing by status keeps the undeclared member until `unexpected` is ruled out.
  if (!note.ok && note.status === 404) {
    // @ts-expect-error a 404 may still be an undeclared answer (e.g. a proxy page)
    expectType<'NOTE_NOT_FOUND'>(note.error.code);
    if (!note.unexpected) expectType<'NOTE_NOT_FOUND'>(note.error.code);
  }
  if (!note.ok && note.status === 502) {
    // @ts-expect-error an undeclared status is only ever the unexpected member
    if (note.error.code === 'NOTE_NOT_FOUND') return;
  }

  const created = await client.createNote({ body: { title: 'T' } });
  if (created.ok) expectType<201>(created.status);
  if (!created.ok && created.status === 507 && !created.unexpected)
    expectType<'NOTE_STORE_FULL'>(created.error.code);

  const deleted = await client.deleteNote({ params: { id: 'x' } });
  if (deleted.ok) {
    expectType<undefined>(deleted.data);
    expectType<204>(deleted.status);
  }

  const verified = await client.verifyEmail({ body: { token: 't' } });
  if (!verified.ok && verified.status === 400 && !verified.unexpected) {
    expectType<'HTTP_VALIDATION' | 'AUTH_TOKEN_INVALID' | 'BAD_REQUEST'>(verified.error.code);
  }
  if (!verified.ok && verified.status === 401 && !verified.unexpected) {
    expectType<'AUTH_TOKEN_INVALID'>(verified.error.code);
  }

  const pong = await client.ping();
  if (pong.ok) expectType<string>(pong.data);
  // @ts-expect-error ping is public: AUTH_REQUIRED is not among its codes
  if (!pong.ok && pong.error.code === 'AUTH_REQUIRED') return;
}
