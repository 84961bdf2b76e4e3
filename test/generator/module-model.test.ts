// The module model: the loader turns `modules:` into IR `moduleSettings`, and the error codes a route can
// answer follow it (shared/openapi/error-codes.ts routeErrorFacts takes it as input). `svc build` refuses
// an `errors:` entry no catalog declares.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'svckit/generator';
import { SpecError } from 'svckit/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { routeErrorCodes, routeErrorsByStatus } from '../../generator/route-errors.js';
import { load } from '../spec/helpers.js';
import { createProject, type TestProject } from './project.js';

const HEAD = 'svc: 1\nname: test-api\nversion: "1.0.0"\n';
const ROUTES = `routes:
  listTasks:
    method: GET
    path: /tasks
    response: { 200: null }
  createTask:
    method: POST
    path: /tasks
    response: { 201: null }
  exportTasks:
    method: POST
    path: /tasks/export
    response: { 200: null }
    meta: { idempotency: false }
`;
/** A route that asks for a signed-in user: it needs modules.auth. */
const SECRET = `  secret:
    method: GET
    path: /secret
    response: { 200: null }
    meta: { auth: true }
`;

async function codesOf(modules: string, routes = ROUTES): Promise<Record<string, string[]>> {
  const ir = await load(`${HEAD}${modules}${routes}`);
  return Object.fromEntries(ir.routes.map((route) => [route.id, routeErrorCodes(route, ir)]));
}

describe('moduleSettings', () => {
  it('normalises modules: auth cookie, edge plugins and global limit, idempotency header and methods, mcp path', async () => {
    const ir = await load(
      `${HEAD}modules:
  auth: { sessionCookie: { name: sid } }
  edge:
    security: { rateLimit: { limit: '\${RATE_LIMIT:-10}', windowMs: 1000 } }
    openapi: { title: Tasks }
  idempotency: { header: x-key, methods: [POST, PUT] }
  mcp: { path: /agents }
routes: {}
`,
    );
    expect(ir.moduleSettings).toEqual({
      auth: { sessionCookie: 'sid', requireMfa: false },
      edge: {
        security: true,
        globalRateLimit: true,
        health: false,
        metrics: false,
        tracing: false,
        openapi: { title: 'Tasks' },
      },
      idempotency: { header: 'x-key', methods: ['POST', 'PUT'] },
      mcp: { path: '/agents' },
    });
    const plain = await load(`${HEAD}modules: { edge: true, auth: false, idempotency: true }\nroutes: {}\n`);
    expect(plain.moduleSettings).toEqual({
      edge: {
        security: true,
        globalRateLimit: false,
        health: true,
        metrics: true,
        tracing: true,
        openapi: {},
      },
      idempotency: { header: 'idempotency-key', methods: ['POST'] },
    });
  });
});

describe('error codes under the module model', () => {
  it('without modules, only what each route asks for', async () => {
    const codes = await codesOf('');
    expect(codes.listTasks).toEqual(['INTERNAL_ERROR']);
    expect(codes.exportTasks).toEqual(['INTERNAL_ERROR']);
  });

  it('a global rate limit adds RATE_LIMITED to every route; edge plugins without one add nothing', async () => {
    const limited = await codesOf(
      'modules:\n  edge: { security: { rateLimit: { limit: 10, windowMs: 1000 } } }\n',
    );
    for (const codes of Object.values(limited)) expect(codes).toContain('RATE_LIMITED');
    const unlimited = await codesOf('modules:\n  edge: true\n');
    expect(unlimited.listTasks).toEqual(['INTERNAL_ERROR']);
  });

  it('the auth module reads credentials on every route, and checks cross-site unsafe requests', async () => {
    const codes = await codesOf('modules:\n  auth: true\n', ROUTES + SECRET);
    expect(codes.listTasks).toEqual(['AUTH_TOKEN_EXPIRED', 'AUTH_TOKEN_INVALID', 'INTERNAL_ERROR']);
    expect(codes.secret).toEqual([
      'AUTH_REQUIRED',
      'AUTH_TOKEN_EXPIRED',
      'AUTH_TOKEN_INVALID',
      'INTERNAL_ERROR',
    ]);
    expect(codes.createTask).toEqual([
      'AUTH_TOKEN_EXPIRED',
      'AUTH_TOKEN_INVALID',
      'AUTH_CSRF_REJECTED',
      'INTERNAL_ERROR',
    ]);
  });

  it('the idempotency module keys the methods it lists, except routes that opt out', async () => {
    const codes = await codesOf('modules:\n  idempotency: true\n');
    expect(codes.createTask).toEqual([
      'IDEMPOTENCY_KEY_INVALID',
      'IDEMPOTENCY_CONFLICT',
      'IDEMPOTENCY_KEY_REUSED',
      'INTERNAL_ERROR',
    ]);
    expect(codes.exportTasks).toEqual(['INTERNAL_ERROR']);
    expect(codes.listTasks).toEqual(['INTERNAL_ERROR']);
  });

  it('documents a refused credential under 401 only, though the catalog also gives the code 400', async () => {
    const ir = await load(`${HEAD}modules:\n  auth: true\n${ROUTES}${SECRET}`);
    const secret = ir.routes.find((route) => route.id === 'secret')!;
    const groups = routeErrorsByStatus(secret, ir).map((group) => [
      group.status,
      group.errors.map((error) => error.code),
    ]);
    expect(groups).toEqual([
      [401, ['AUTH_REQUIRED', 'AUTH_TOKEN_EXPIRED', 'AUTH_TOKEN_INVALID']],
      [500, ['INTERNAL_ERROR']],
    ]);
  });
});

describe('svc build and error codes', () => {
  let project: TestProject | undefined;
  afterEach(() => project?.remove());

  it('refuses an errors: entry that names no catalog code, at file:line:col with a did-you-mean', async () => {
    project = createProject(
      `${HEAD}routes:\n  a:\n    method: GET\n    path: /a\n    response: { 200: null }\n    errors: [RATE_LIMITTED]\n`,
    );
    const error = await build({ specFile: project.specFile, env: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).problems).toEqual([
      expect.objectContaining({
        file: project.specFile,
        line: 9,
        column: 14,
        message: "unknown error code 'RATE_LIMITTED'",
        hint: "did you mean 'RATE_LIMITED'?",
      }),
    ]);
    expect(existsSync(join(project.outDir, 'openapi.json'))).toBe(false);
  });
});
