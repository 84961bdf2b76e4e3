// Mistakes in routes: paths and their params, query, body, response, errors, meta, and the cross-checks.
import { describe, expect, it } from 'vitest';
import { HEAD, expectOnly, expectProblem, load, problemsOf } from './helpers.js';

/** `routes:` is line 4, so the first route id is on line 5 and its first key on line 6. */
const routes = (body: string) => `${HEAD}routes:\n${body}`;
/** The meta under test needs these modules on; written after the routes, so line numbers stay put. */
const MCP_ON = 'modules:\n  mcp: true\n';

describe('paths and params', () => {
  it('requires every path parameter to be declared, pointing at it in the path', async () => {
    await expectOnly(routes('  getNote:\n    method: GET\n    path: /notes/:id\n'), {
      line: 7,
      column: 18,
      message: "path parameter 'id' is not declared in params",
      hint: 'add params: { id: { type: string } }',
    });
  });

  it('refuses params the path does not have, suggesting the one meant', async () => {
    const result = await problemsOf(
      routes('  getNote:\n    method: GET\n    path: /notes/:id\n    params: { noteId: { type: string } }\n'),
    );
    expectProblem(result, {
      line: 8,
      column: 15,
      message: 'params.noteId is not a parameter of the path',
      hint: 'remove it, or add /:noteId to the path',
    });
    expectProblem(result, {
      line: 7,
      column: 18,
      message: "path parameter 'id' is not declared in params",
      hint: 'add id: { type: string } under params',
    });
  });

  it('wants scalar path parameters', async () => {
    await expectOnly(
      routes('  getNote:\n    method: GET\n    path: /notes/:id\n    params: { id: { type: object } }\n'),
      {
        line: 8,
        column: 19,
        message: "path parameter 'id' must be a string, integer, number or boolean",
        hint: 'write id: { type: string }',
      },
    );
  });

  it('checks path syntax: braces, empty segments, trailing slash, repeated parameters', async () => {
    const result = await problemsOf(
      routes(
        '  a:\n    method: GET\n    path: /notes/{id}\n  b: { method: GET, path: /x//y }\n  c: { method: GET, path: /c/ }\n  d: { method: GET, path: "/d/:id/:id", params: { id: { type: string } } }\n',
      ),
    );
    expectProblem(result, {
      line: 7,
      column: 18,
      message: "invalid path segment '{id}'",
      hint: 'write :id for a path parameter',
    });
    expectProblem(result, {
      line: 8,
      column: 30,
      message: "path '/x//y' has an empty segment ('//')",
      hint: 'write path: /x/y',
    });
    expectProblem(result, {
      line: 9,
      column: 29,
      message: "path '/c/' ends with '/'",
      hint: 'write path: /c (routes have no trailing-slash alias)',
    });
    expectProblem(result, {
      line: 10,
      column: 35,
      message: "path parameter ':id' appears twice",
      hint: 'give each parameter its own name, e.g. :id2',
    });
  });

  it('treats /notes/:id and /notes/:noteId as the same path', async () => {
    await expectOnly(
      routes(
        '  getNote: { method: GET, path: /notes/:id, params: { id: { type: string } } }\n  readNote: { method: GET, path: /notes/:noteId, params: { noteId: { type: string } } }\n',
      ),
      {
        line: 6,
        column: 34,
        message: "GET /notes/:noteId is already routed by 'getNote' (/notes/:id)",
        hint: 'change the path or the method, or merge the two routes',
      },
    );
  });

  it('allows the same path with another method', async () => {
    const result = await problemsOf(
      routes(
        '  a: { method: GET, path: /a }\n  b: { method: POST, path: /a }\n  c: { method: GET, path: /a/b }\nnmae: x\n',
      ),
    );
    expect(result.problems.map((p) => p.message)).toEqual(["unknown key 'nmae' at the top level"]);
  });
});

describe('query', () => {
  it('wants scalars or lists of scalars', async () => {
    await expectOnly(
      routes('  a:\n    method: GET\n    path: /a\n    query: { filter: { type: object } }\n'),
      {
        line: 8,
        column: 22,
        message: "query parameter 'filter' must be a scalar or a list of scalars",
        hint: 'write filter: { type: string }, or { type: array, items: { type: string } }',
      },
    );
  });

  it('explains how to require a query parameter', async () => {
    await expectOnly(
      routes(
        '  a:\n    method: GET\n    path: /a\n    query: { limit: { type: integer, required: true } }\n',
      ),
      {
        line: 8,
        column: 48,
        message: 'routes.a.query.limit.required: expected a list of property names but got true',
        hint: 'list required properties on the object schema: required: [name] (query parameters: use the full form)',
      },
    );
  });

  it('wants type: object in the full form', async () => {
    await expectOnly(
      routes('  a:\n    method: GET\n    path: /a\n    query: { type: array, items: { type: string } }\n'),
      {
        line: 8,
        column: 20,
        message: 'routes.a.query: a full query schema must have type: object',
        hint: 'write type: object, or list the parameters directly: query: { limit: { type: integer } }',
      },
    );
  });
});

describe('body and response', () => {
  it('refuses a body on GET and HEAD', async () => {
    await expectOnly(routes('  a:\n    method: GET\n    path: /a\n    body: { type: object }\n'), {
      line: 8,
      column: 5,
      message: 'GET routes cannot have a body',
      hint: 'move the fields to query:, or use POST',
    });
  });

  it('checks the json wrapper and explains the optional body', async () => {
    const result = await problemsOf(
      routes(
        '  a:\n    method: POST\n    path: /a\n    body: { json: { type: object }, requird: false }\n  b:\n    method: POST\n    path: /b\n    body: { schema: { type: object }, required: false }\n',
      ),
    );
    expectProblem(result, {
      line: 8,
      column: 37,
      message: "unknown key 'requird' in routes.a.body",
      hint: "did you mean 'required'?",
    });
    expectProblem(result, {
      line: 12,
      column: 13,
      message: "unknown schema keyword 'schema' in routes.b.body",
      hint: 'a JSON body with options is written body: { json: <schema>, required: false }',
    });
  });

  it('wants no body for 204 and 304, and status codes as keys', async () => {
    const result = await problemsOf(
      routes('  a:\n    method: DELETE\n    path: /a\n    response: { 204: { type: object }, 1000: null }\n'),
    );
    expectProblem(result, {
      line: 8,
      column: 22,
      message: 'status 204 never has a body',
      hint: 'write 204: null',
    });
    expectProblem(result, {
      line: 8,
      column: 40,
      message: "routes.a.response.1000: '1000' is not a valid HTTP status code",
      hint: 'response keys are status codes from 100 to 599, e.g. 200',
    });
  });
});

describe('error codes', () => {
  it('wants every code declared or built in, answerable over HTTP, once', async () => {
    const result = await problemsOf(
      routes(
        '  a:\n    method: GET\n    path: /a\n    errors: [NOTE_NOTFOUND, HTTP_UNGUARDED_ROUTE_META, NOT_FOUND, NOT_FOUND]\nerrors:\n  NOTE_NOT_FOUND: { status: 404, message: Note not found. }\n',
      ),
    );
    expectProblem(result, {
      line: 8,
      column: 14,
      message: "unknown error code 'NOTE_NOTFOUND'",
      hint: "did you mean 'NOTE_NOT_FOUND'?",
    });
    expectProblem(result, {
      line: 8,
      column: 29,
      message: "'HTTP_UNGUARDED_ROUTE_META' is a boot-time error and is never answered over HTTP",
      hint: "remove HTTP_UNGUARDED_ROUTE_META from the route's errors",
    });
    expectProblem(result, {
      line: 8,
      column: 67,
      message: "routes.a.errors: 'NOT_FOUND' is listed twice",
      hint: "remove the repeated 'NOT_FOUND'",
    });
  });

  it('refuses an application code that reuses a built-in code', async () => {
    await expectOnly(`${HEAD}routes: {}\nerrors:\n  NOT_FOUND: { status: 404, message: Gone. }\n`, {
      line: 6,
      column: 3,
      message: "error code 'NOT_FOUND' is built into svckit (module http, status 404)",
      hint: "rename it, e.g. APP_NOT_FOUND, or delete the entry and list the built-in code in a route's errors:",
    });
  });

  it('wants error statuses between 400 and 599', async () => {
    await expectOnly(`${HEAD}routes: {}\nerrors:\n  MOVED: { status: 301, message: Moved. }\n`, {
      line: 6,
      column: 20,
      message: 'errors.MOVED.status: expected an integer between 400 and 599 but got 301',
      hint: 'write an integer between 400 and 599',
    });
  });
});

describe('meta', () => {
  it('refuses operationId: the route id is the operationId', async () => {
    await expectOnly(
      routes('  listNotes:\n    method: GET\n    path: /notes\n    meta: { operationId: getAllNotes }\n'),
      {
        line: 8,
        column: 13,
        message: "meta.operationId is not allowed: the route id 'listNotes' is the operationId",
        hint: 'rename the route instead (its id becomes the operationId), and remove operationId',
      },
    );
  });

  it('types the built-in keys', async () => {
    const result = await problemsOf(
      routes(
        '  a:\n    method: GET\n    path: /a\n    meta: { auth: yes, can: [], rateLimit: { limit: 10 }, mcp: { nme: x } }\n',
      ),
    );
    expectProblem(result, {
      line: 8,
      column: 19,
      message: "routes.a.meta.auth: expected true or false but got 'yes'",
      hint: 'write true or false',
    });
    expectProblem(result, {
      line: 8,
      column: 29,
      message: 'routes.a.meta.can: must list at least 1 item(s)',
      hint: 'add an item, or remove the key',
    });
    expectProblem(result, {
      line: 8,
      column: 44,
      message: "missing required key 'windowMs' in routes.a.meta.rateLimit",
      hint: 'add windowMs: <an integer>',
    });
    expectProblem(result, {
      line: 8,
      column: 66,
      message: "unknown key 'nme' in routes.a.meta.mcp",
      hint: "did you mean 'name'?",
    });
  });

  it('types meta.documentHeaders as a boolean and accepts it on a page route', async () => {
    const wrong = await problemsOf(
      routes('  a:\n    method: GET\n    path: /a\n    meta: { documentHeaders: yes }\n'),
    );
    expectProblem(wrong, {
      line: 8,
      column: 30,
      message: "routes.a.meta.documentHeaders: expected true or false but got 'yes'",
      hint: 'write true or false',
    });
    const right = await load(
      routes('  a:\n    method: GET\n    path: /a\n    meta: { documentHeaders: true }\n') +
        'modules:\n  edge: { security: true }\n',
    );
    expect(right.routes[0]?.meta).toEqual({ documentHeaders: true });
  });

  it('accepts false as an opt-off for any key', async () => {
    const result = await problemsOf(
      routes(
        '  a:\n    method: GET\n    path: /a\n    meta: { scopes: false, rateLimit: false, can: false, mcp: false }\nnmae: x\n',
      ),
    );
    expect(result.problems.map((p) => p.message)).toEqual(["unknown key 'nmae' at the top level"]);
  });

  it('validates declared custom keys against their schema and refuses undeclared ones', async () => {
    const result = await problemsOf(
      routes(
        '  a:\n    method: GET\n    path: /a\n    meta: { audit: loud, auditLog: true }\nmetaKeys:\n  audit: { schema: { enum: [quiet, verbose] } }\n',
      ),
    );
    expectProblem(result, {
      line: 8,
      column: 20,
      message: 'routes.a.meta.audit: expected one of "quiet", "verbose" but got \'loud\'',
      hint: 'write a value that matches metaKeys.audit.schema',
    });
    expectProblem(result, {
      line: 8,
      column: 26,
      message: "unknown key 'auditLog' in routes.a.meta",
      hint: "did you mean 'audit'?",
    });
  });

  it('refuses a custom meta key named like a built-in one', async () => {
    await expectOnly(`${HEAD}routes: {}\nmetaKeys:\n  auth: { guarded: true }\n`, {
      line: 6,
      column: 3,
      message: "'auth' is a built-in meta key",
      hint: 'use meta.auth as built in, or declare a custom key with another name',
    });
  });
});

describe('MCP tools', () => {
  it('wants unique tool names, derived or set', async () => {
    await expectOnly(
      routes(
        '  listNotes: { method: GET, path: /notes, meta: { mcp: true } }\n  searchNotes: { method: POST, path: /notes/search, meta: { mcp: { name: get_notes } } }\n',
      ) + MCP_ON,
      {
        line: 6,
        column: 66,
        message: "MCP tool name 'get_notes' is already used by route 'listNotes'",
        hint: 'set a unique name: mcp: { name: search_notes }',
      },
    );
  });

  it('refuses the same property in two input parts', async () => {
    await expectOnly(
      routes(
        '  a:\n    method: PUT\n    path: /notes/:id\n    params: { id: { type: string } }\n    body: { type: object, properties: { id: { type: string } } }\n    meta: { mcp: true }\n',
      ) + MCP_ON,
      {
        line: 10,
        column: 18,
        message:
          "MCP tool 'put_notes_by_id': property 'id' is in both params and body; a tool takes one flat object",
        hint: "rename the body property 'id', or remove meta.mcp from 'a'",
      },
    );
  });

  it('wants an object body', async () => {
    await expectOnly(
      `${HEAD}resources:\n  Tags: { type: array, items: { type: string } }\nroutes:\n  a:\n    method: POST\n    path: /tags\n    body: Tags\n    meta: { mcp: true }\n${MCP_ON}`,
      {
        line: 11,
        column: 18,
        message: "MCP tool 'post_tags' needs an object body, but the body of 'a' is not an object schema",
        hint: 'tools take one flat object: make the body { type: object, properties: ... }, or remove meta.mcp',
      },
    );
  });
});
