// The codes the tenancy module lets a route answer, documented in openapi.json (and so in the client's error
// types) without the route listing them: every route reads the tenant a request names (malformed, or two
// different ones, is refused), and admits its members only unless it is about the caller (`account: true`)
// or above tenants (`central: true`); `teamRole` and `can` need a tenant and a signed-in member. The served
// document of handwritten routes follows the same rule.
import { beforeAll, describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { emitOpenApi, type OpenApiDocument } from '../../generator/emit-openapi.js';
import { describeRoute } from '../../runtime/edge/openapi/route-operation.js';
import type { OpenApiOperation } from '../../shared/openapi/types.js';
import { HEAD, load } from './helpers.js';

const ROUTES = `routes:
  listNotes: { method: GET, path: /notes, response: { 200: null } }
  deleteNote:
    method: DELETE
    path: /notes/:id
    params: { id: { type: string } }
    response: { 204: null }
    meta: { auth: true, can: 'notes:delete' }
  archiveNotes: { method: POST, path: /notes/archive, response: { 204: null }, meta: { teamRole: admin } }
  myProfile: { method: GET, path: /profile, response: { 200: null }, meta: { auth: true, account: true } }
  allTenants: { method: GET, path: /admin/tenants, response: { 200: null }, meta: { central: true } }
`;
const TENANCY = `modules:
  auth: true
  tenancy:
    permissions: { 'notes:delete': [owner, admin] }
`;
const MEMBERSHIP = ['TENANT_INVALID', 'TENANT_CONFLICT', 'TENANT_ACCESS_DENIED'];
const GUARDS = ['TENANT_REQUIRED', 'TENANT_ROLE_REQUIRED', 'PERMISSION_DENIED'];
const ALL = [...MEMBERSHIP, ...GUARDS];

/** Every error code an operation documents, by status. */
function codesByStatus(op: OpenApiOperation | undefined): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const [status, response] of Object.entries(op?.responses ?? {})) {
    const text = JSON.stringify(response.content?.['application/json']?.schema ?? {});
    const codes = /"enum":\[([^\]]*)\]/.exec(text)?.[1];
    if (codes !== undefined) found[status] = JSON.parse(`[${codes}]`) as string[];
  }
  return found;
}

function codes(op: OpenApiOperation | undefined): string[] {
  return Object.values(codesByStatus(op)).flat();
}

describe('openapi.json with modules.tenancy', () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    document = emitOpenApi(await load(`${HEAD}${TENANCY}${ROUTES}`), { header: '' });
  });

  it('documents the membership codes on a tenant route, under 400 and 403', () => {
    const found = codesByStatus(document.paths['/notes']?.get);
    expect(found['400']).toEqual(['TENANT_CONFLICT', 'TENANT_INVALID']);
    expect(found['403']).toEqual(['TENANT_ACCESS_DENIED']);
    expect(codes(document.paths['/notes']?.get)).not.toContain('TENANT_REQUIRED');
    expect(codes(document.paths['/notes']?.get)).not.toContain('AUTH_REQUIRED');
  });

  it('adds TENANT_REQUIRED and PERMISSION_DENIED for meta.can', () => {
    const found = codes(document.paths['/notes/{id}']?.delete);
    expect(found).toEqual(expect.arrayContaining([...MEMBERSHIP, 'TENANT_REQUIRED', 'PERMISSION_DENIED']));
    expect(found).not.toContain('TENANT_ROLE_REQUIRED');
  });

  it('adds TENANT_REQUIRED, TENANT_ROLE_REQUIRED and AUTH_REQUIRED for meta.teamRole', () => {
    const found = codesByStatus(document.paths['/notes/archive']?.post);
    expect(found['401']).toContain('AUTH_REQUIRED');
    expect(found['400']).toEqual(['TENANT_CONFLICT', 'TENANT_INVALID', 'TENANT_REQUIRED']);
    expect(found['403']).toEqual(['AUTH_CSRF_REJECTED', 'TENANT_ACCESS_DENIED', 'TENANT_ROLE_REQUIRED']);
  });

  it('documents no membership code on an account or a central route, only a malformed or conflicting tenant', () => {
    for (const op of [
      document.paths['/profile']?.get,
      document.paths['/admin/tenants']?.get,
      document.paths['/tenants']?.post,
    ]) {
      expect(op).toBeDefined();
      expect(codes(op).filter((code) => ALL.includes(code))).toEqual(['TENANT_CONFLICT', 'TENANT_INVALID']);
    }
  });

  it("documents the module's own routes the same way", () => {
    expect(codes(document.paths['/tenants/{tenantId}/members']?.get)).toEqual(
      expect.arrayContaining(MEMBERSHIP),
    );
    expect(codes(document.paths['/tenants/{tenantId}/members']?.post)).toEqual(
      expect.arrayContaining([...MEMBERSHIP, 'TENANT_REQUIRED', 'PERMISSION_DENIED']),
    );
  });

  it('documents no tenant code without the module', async () => {
    const plain = emitOpenApi(
      await load(
        `${HEAD}modules: { auth: true }\nroutes:\n  listNotes: { method: GET, path: /notes, response: { 200: null } }\n`,
      ),
      { header: '' },
    );
    expect(codes(plain.paths['/notes']?.get).filter((code) => ALL.includes(code))).toEqual([]);
  });
});

describe('the served document of handwritten routes', () => {
  const handwritten = route({
    method: 'POST',
    url: '/reports',
    meta: { auth: true, teamRole: 'admin', can: ['reports:run'] },
    handler: () => null,
  });

  it('follows the same rule once a plugin publishes the tenancy module', () => {
    const found = codes(describeRoute(handwritten, 'runReport', [], { modules: { tenancy: {} } }));
    expect(found).toEqual(expect.arrayContaining(ALL));
    expect(codes(describeRoute(handwritten, 'runReport', []))).not.toContain('TENANT_REQUIRED');
  });
});
