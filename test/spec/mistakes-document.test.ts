// Mistakes in the document's own shape: YAML syntax, unknown keys, wrong types and enums, missing keys.
import { describe, expect, it } from 'vitest';
import { formatProblems } from 'svckit/spec';
import { HEAD, expectOnly, expectProblem, problemsOf } from './helpers.js';

describe('YAML syntax', () => {
  it('reports a tab used for indentation at its position', async () => {
    await expectOnly(`${HEAD}routes:\n\tgetNote: {}\n`, {
      line: 5,
      column: 1,
      message: 'invalid YAML: Tabs are not allowed as indentation',
      hint: 'indent with spaces, not tabs',
    });
  });

  it('reports a duplicate key at the repeated key', async () => {
    await expectOnly(`${HEAD}routes: {}\nname: other\n`, {
      line: 5,
      column: 1,
      message: "duplicate key 'name'",
      hint: 'each key may appear once per mapping: remove or merge the repeated one',
    });
  });

  it('reports an unclosed flow collection', async () => {
    const result = await problemsOf(`${HEAD}routes: {}\nresources: { Note: [1, 2 }\n`);
    expect(result.problems.length).toBeGreaterThan(0);
    expect(result.problems[0]!.line).toBe(5);
    expect(result.problems[0]!.message).toMatch(/^invalid YAML: /);
    expect(result.problems[0]!.hint).toBeDefined();
  });

  it('points an unclosed quoted string at where it opens, not at the end of the file', async () => {
    await expectOnly(`${HEAD}routes:\n  a:\n    method: GET\n    path: "/a\nerrors: {}\n`, {
      line: 7,
      column: 11,
      message: 'invalid YAML: this quoted string is never closed',
      hint: 'end it with a matching "',
    });
  });

  it('refuses an empty file and a file that is not a mapping', async () => {
    await expectOnly('', { line: 1, column: 1, message: 'the file is empty', hint: 'start it with: svc: 1' });
    await expectOnly('- svc\n- name\n', {
      line: 1,
      column: 1,
      message: 'a spec is a mapping of keys (svc: 1, name, version, routes, ...) but this file holds a list',
      hint: 'start the file with: svc: 1',
    });
  });

  it('refuses an alias that refers to a value containing it instead of recursing forever', async () => {
    const result = await problemsOf(
      `${HEAD}routes: {}\nresources:\n  Note: &a\n    type: object\n    items: *a\n`,
    );
    expect(result.problems.some((p) => p.message.includes('refers to a value containing it'))).toBe(true);
  });
});

describe('unknown keys', () => {
  it('suggests the closest key at the top level', async () => {
    await expectOnly(`${HEAD}routes: {}\nnmae: x\n`, {
      line: 5,
      column: 1,
      message: "unknown key 'nmae' at the top level",
      hint: "did you mean 'name'?",
      path: 'nmae',
    });
  });

  it('lists the allowed keys when nothing is close', async () => {
    await expectOnly(`${HEAD}routes: {}\nserver:\n  listen: 80\n`, {
      line: 6,
      column: 3,
      message: "unknown key 'listen' in server",
      hint: 'allowed keys: adapter, port, host, entry',
    });
  });

  it('flags a misspelt meta key: atuh is never silently accepted', async () => {
    const text = `${HEAD}routes:\n  getNote:\n    method: GET\n    path: /notes\n    meta:\n      atuh: true\n`;
    const result = await problemsOf(text);
    expect(result.problems).toHaveLength(1);
    expectProblem(result, {
      line: 9,
      column: 7,
      message: "unknown key 'atuh' in routes.getNote.meta",
      hint: "did you mean 'auth'?",
      path: 'routes.getNote.meta.atuh',
    });
    expect(formatProblems(result.problems, { cwd: result.file.replace(/[^/]+$/, '') })).toBe(
      `${result.file.split('/').pop()}:9:7 error: unknown key 'atuh' in routes.getNote.meta\n  hint: did you mean 'auth'?`,
    );
  });

  it('flags unknown keys in a route and in an error entry', async () => {
    const result = await problemsOf(
      `${HEAD}routes:\n  a:\n    method: GET\n    path: /a\n    summary: x\nerrors:\n  MY_ERROR: { status: 400, mesage: x, message: y }\n`,
    );
    expectProblem(result, {
      line: 8,
      column: 5,
      message: "unknown key 'summary' in routes.a",
      hint: /^allowed keys: method, path/,
    });
    expectProblem(result, {
      line: 10,
      column: 28,
      message: "unknown key 'mesage' in errors.MY_ERROR",
      hint: "did you mean 'message'?",
    });
  });

  it('never takes a key for an Object.prototype member', async () => {
    const result = await problemsOf(
      `${HEAD}constructor: x\nroutes:\n  a:\n    method: GET\n    path: /a\n    meta: { toString: true }\nresources:\n  Note: { type: object, constructor: {} }\n`,
    );
    expect(result.problems.map((p) => [p.line, p.column, p.message])).toEqual([
      [4, 1, "unknown key 'constructor' at the top level"],
      [9, 13, "unknown key 'toString' in routes.a.meta"],
      [11, 25, "unknown schema keyword 'constructor' in resources.Note"],
    ]);
  });

  it('reports a misspelt required key once, as the unknown key', async () => {
    await expectOnly(`${HEAD}routes:\n  a:\n    methd: GET\n    path: /a\n`, {
      line: 6,
      column: 5,
      message: "unknown key 'methd' in routes.a",
      hint: "did you mean 'method'?",
    });
  });

  it('flags a misspelt meta key even when its value is the opt-off false', async () => {
    await expectOnly(`${HEAD}routes:\n  a: { method: GET, path: /a, meta: { atuh: false } }\n`, {
      line: 5,
      column: 39,
      message: "unknown key 'atuh' in routes.a.meta",
      hint: "did you mean 'auth'?",
    });
  });

  it('names the modules there are, and the plugins and options of modules.edge', async () => {
    await expectOnly(`${HEAD}routes: {}\nmodules:\n  storage: {}\n`, {
      line: 6,
      column: 3,
      message: "unknown key 'storage' in modules",
      hint: 'allowed keys: auth, edge, idempotency, mcp, mail, tenancy, files',
    });
    await expectOnly(`${HEAD}routes: {}\nmodules:\n  edge:\n    metrcs: true\n`, {
      line: 7,
      column: 5,
      message: "unknown key 'metrcs' in modules.edge",
      hint: "did you mean 'metrics'?",
    });
    const bad = await problemsOf(
      `${HEAD}routes: {}\nmodules:\n  edge:\n    security: { rateLimit: { limit: 10 } }\n  idempotency: { ttlMs: 0 }\n`,
    );
    expect(bad.problems.map((problem) => problem.message)).toEqual([
      "missing required key 'windowMs' in modules.edge.security.rateLimit",
      'modules.idempotency.ttlMs: expected an integer of at least 1 but got 0',
    ]);
  });
});

describe('types, enums and required keys', () => {
  it('names the allowed methods and the likely one', async () => {
    await expectOnly(`${HEAD}routes:\n  a:\n    method: GETS\n    path: /a\n`, {
      line: 6,
      column: 13,
      message: "routes.a.method: expected one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS but got 'GETS'",
      hint: "did you mean 'GET'?",
    });
  });

  it('wants an integer port', async () => {
    await expectOnly(`${HEAD}routes: {}\nserver: { port: abc }\n`, {
      line: 5,
      column: 17,
      message: "server.port: expected an integer but got 'abc'",
      hint: 'write an integer',
    });
  });

  it('wants an integer error status', async () => {
    await expectOnly(`${HEAD}routes: {}\nerrors:\n  GONE: { status: not-found, message: Gone. }\n`, {
      line: 6,
      column: 19,
      message: "errors.GONE.status: expected an integer from 400 to 599 but got 'not-found'",
      hint: 'write an integer from 400 to 599',
    });
  });

  it('checks ranges', async () => {
    await expectOnly(`${HEAD}routes: {}\nserver: { port: 70000 }\n`, {
      line: 5,
      column: 17,
      message: 'server.port: expected an integer between 0 and 65535 but got 70000',
      hint: 'write an integer between 0 and 65535',
    });
  });

  it('tells to quote a version YAML reads as a number', async () => {
    await expectOnly('svc: 1\nname: a\nversion: 1.0\nroutes: {}\n', {
      line: 3,
      column: 10,
      message: 'version: expected a version string but got 1.0',
      hint: 'quote it: version: "1.0"',
    });
  });

  it('reports a missing required key at the parent mapping', async () => {
    await expectOnly(`${HEAD}routes:\n  getNote:\n    method: GET\n`, {
      line: 6,
      column: 5,
      message: "missing required key 'path' in routes.getNote",
      hint: 'add path: /notes/:id',
    });
  });

  it('reports missing top-level keys at 1:1', async () => {
    const result = await problemsOf('svc: 1\nroutes: {}\n');
    expect(result.problems.map((p) => [p.line, p.column, p.message, p.hint])).toEqual([
      [1, 1, "missing required key 'name' at the top level", 'add name: notes-api'],
      [1, 1, "missing required key 'version' at the top level", 'add version: 1.0.0'],
    ]);
  });

  it('checks names against their patterns', async () => {
    const result = await problemsOf(
      `svc: 1\nname: Notes_API\nversion: "1"\nroutes:\n  GetNote: { method: GET, path: /a }\n`,
    );
    expectProblem(result, {
      line: 2,
      column: 7,
      message: "name: 'Notes_API' is not a valid service name",
      hint: "use lower-case letters, digits and '-', starting with a letter, e.g. name: notes-api",
    });
    expectProblem(result, {
      line: 5,
      column: 3,
      message: "routes.GetNote: 'GetNote' is not a valid route id",
      hint: 'route ids are camelCase letters and digits, e.g. getNote',
    });
  });

  it('wants svc: 1', async () => {
    await expectOnly('svc: 2\nname: a\nversion: "1"\nroutes: {}\n', {
      line: 1,
      column: 6,
      message: 'expected 1 but got 2',
      hint: 'write svc: 1',
    });
  });
});

describe('collecting', () => {
  it('reports every problem of a file in one error, sorted by position', async () => {
    const result = await problemsOf(
      `svc: 1\nname: Bad_Name\nversion: "1"\nroutes:\n  a:\n    method: GETS\n    path: /a/\n    meta: { atuh: true }\nnmae: x\n`,
    );
    expect(result.problems.map((p) => [p.line, p.column])).toEqual([
      [2, 7],
      [6, 13],
      [7, 13],
      [8, 13],
      [9, 1],
    ]);
    expect(result.error.message.split('\n').filter((line) => line.includes(' error: '))).toHaveLength(5);
  });
});
