// API keys in the application's openapi.json: with `modules.auth.apiKeys` a key-header scheme joins the
// auth module's three, sign-in routes and routes asking for scopes accept it (with the scopes listed on it)
// unless they refuse keys, and the pipeline's API-key refusals are documented as codes each route may answer.
// Without API keys nothing of this shows, so existing documents and clients stay as they were.
import { describe, expect, it } from 'vitest';
import { emitClient } from '../../generator/emit-client.js';
import { emitOpenApi, type OpenApiDocument } from '../../generator/emit-openapi.js';
import { routeErrorCodes } from '../../generator/route-errors.js';
import { routeErrorModules } from '../../runtime/edge/openapi/module-model.js';
import { impliedErrorCodes, routeErrorFacts } from '../../shared/openapi/error-codes.js';
import { routeSecurity } from '../../shared/openapi/security.js';
import { load } from '../spec/helpers.js';

const HEAD = 'svc: 1\nname: test-api\nversion: "1.0.0"\n';
const ROUTES = `routes:
  listNotes:
    method: GET
    path: /notes
    response: { 200: null }
    meta: { scopes: ['notes:read'] }
  secret:
    method: GET
    path: /secret
    response: { 200: null }
    meta: { auth: true }
  settings:
    method: GET
    path: /settings
    response: { 200: null }
    meta: { auth: true, apiKey: false }
  open:
    method: GET
    path: /open
    response: { 200: null }
`;
const WITHOUT_KEYS = ROUTES.replace("meta: { scopes: ['notes:read'] }", 'meta: {}').replace(
  ', apiKey: false',
  '',
);
const API_KEY_CODES = [
  'AUTH_APIKEY_AMBIGUOUS',
  'AUTH_APIKEY_NOT_ALLOWED',
  'AUTH_APIKEY_TENANT_MISMATCH',
  'AUTH_SCOPE_REQUIRED',
];

async function documentOf(modules: string, routes = ROUTES): Promise<OpenApiDocument> {
  return emitOpenApi(await load(`${HEAD}modules:\n${modules}${routes}`), { header: '' });
}

function securityOf(doc: OpenApiDocument, path: string): unknown {
  return doc.paths[path]?.get?.security;
}

describe('openapi.json with modules.auth.apiKeys', () => {
  it('declares apiKeyHeader in the configured header, and says the bearer scheme takes mk_live_ keys', async () => {
    const doc = await documentOf("  auth: { apiKeys: { header: x-key, scopes: ['notes:read'] } }\n");
    const schemes = doc.components.securitySchemes!;
    expect(Object.keys(schemes)).toEqual(['bearerAuth', 'sessionCookie', 'sessionHeader', 'apiKeyHeader']);
    expect(schemes.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-key' });
    expect(schemes.bearerAuth!.description).toContain('mk_live_');
    const byDefault = await documentOf('  auth: { apiKeys: true }\n');
    expect(byDefault.components.securitySchemes!.apiKeyHeader).toMatchObject({ name: 'x-api-key' });
  });

  it('lets sign-in routes take a key, lists a route’s scopes on the key scheme, and leaves it out where apiKey: false', async () => {
    const doc = await documentOf("  auth: { apiKeys: { scopes: ['notes:read'] } }\n");
    const session = [{ bearerAuth: [] }, { sessionCookie: [] }, { sessionHeader: [] }];
    // A scoped route without `auth` still needs a credential: a key holding the scopes, or a signed-in user.
    expect(securityOf(doc, '/notes')).toEqual([...session, { apiKeyHeader: ['notes:read'] }]);
    expect(securityOf(doc, '/secret')).toEqual([...session, { apiKeyHeader: [] }]);
    expect(securityOf(doc, '/settings')).toEqual(session);
    expect(securityOf(doc, '/open')).toEqual([]);
    // The module's own key routes accept a sign-in only.
    expect(doc.paths['/apikeys']?.post?.security).toEqual(session);
  });

  it('documents the API-key refusals each route may answer', async () => {
    const ir = await load(`${HEAD}modules:\n  auth: { apiKeys: { scopes: ['notes:read'] } }\n${ROUTES}`);
    const codes = Object.fromEntries(
      ir.routes.map((route) => [
        route.id,
        routeErrorCodes(route, ir).filter((code) => API_KEY_CODES.includes(code) || code === 'AUTH_REQUIRED'),
      ]),
    );
    expect(codes).toEqual({
      // A scoped route refuses a key lacking a scope, and an anonymous caller.
      listNotes: [
        'AUTH_APIKEY_AMBIGUOUS',
        'AUTH_REQUIRED',
        'AUTH_APIKEY_TENANT_MISMATCH',
        'AUTH_SCOPE_REQUIRED',
      ],
      // A protected route without scopes refuses keys without `*`.
      secret: [
        'AUTH_APIKEY_AMBIGUOUS',
        'AUTH_REQUIRED',
        'AUTH_APIKEY_TENANT_MISMATCH',
        'AUTH_SCOPE_REQUIRED',
      ],
      // A route refusing keys refuses them all, before their tenant or scopes matter.
      settings: ['AUTH_APIKEY_AMBIGUOUS', 'AUTH_REQUIRED', 'AUTH_APIKEY_NOT_ALLOWED'],
      open: ['AUTH_APIKEY_AMBIGUOUS', 'AUTH_APIKEY_TENANT_MISMATCH'],
    });
    const doc = emitOpenApi(ir, { header: '' });
    expect(Object.keys(doc.paths['/notes']!.get!.responses)).toEqual(
      expect.arrayContaining(['400', '401', '403']),
    );
  });
});

describe('without API keys nothing changes', () => {
  it('declares the three session schemes only, the bearer description names no key, and no API-key code', async () => {
    const doc = await documentOf('  auth: true\n', WITHOUT_KEYS);
    const schemes = doc.components.securitySchemes!;
    expect(Object.keys(schemes)).toEqual(['bearerAuth', 'sessionCookie', 'sessionHeader']);
    expect(schemes.bearerAuth!.description).not.toContain('mk_live_');
    expect(securityOf(doc, '/secret')).toEqual([
      { bearerAuth: [] },
      { sessionCookie: [] },
      { sessionHeader: [] },
    ]);
    const text = JSON.stringify(doc);
    for (const code of API_KEY_CODES) expect(text).not.toContain(code);
    const client = emitClient(await load(`${HEAD}modules:\n  auth: true\n${WITHOUT_KEYS}`), { header: '' });
    for (const code of API_KEY_CODES) expect(client).not.toContain(code);
  });

  it('a route with apiKey: false needs no API keys and documents no key refusal', async () => {
    const doc = await documentOf(
      '  auth: true\n',
      ROUTES.replace("meta: { scopes: ['notes:read'] }", 'meta: {}'),
    );
    expect(securityOf(doc, '/settings')).toEqual([
      { bearerAuth: [] },
      { sessionCookie: [] },
      { sessionHeader: [] },
    ]);
    expect(JSON.stringify(doc.paths['/settings'])).not.toContain('AUTH_APIKEY_NOT_ALLOWED');
  });
});

describe('the shared rules the served document reads too', () => {
  it('routeSecurity: public routes stay public; without a key scheme scopes add nothing to it', () => {
    const session = [{ bearerAuth: [] }];
    expect(routeSecurity({}, session)).toEqual([]);
    expect(routeSecurity({ scopes: [] }, session)).toEqual([]);
    expect(routeSecurity({ auth: true, scopes: ['a:b'] }, session)).toEqual(session);
  });

  it('routeErrorFacts reads the plugin’s published { auth: { apiKeys: true } } as the build reads the settings', () => {
    const route = { method: 'GET', meta: { scopes: ['notes:read'] } };
    const published = routeErrorModules([{ auth: { apiKeys: true } }, { auth: {} }]);
    expect(published).toEqual({ auth: { apiKeys: true } });
    const runtime = impliedErrorCodes(routeErrorFacts(route, published));
    const build = impliedErrorCodes(
      routeErrorFacts(route, {
        auth: { requireMfa: false, apiKeys: { header: 'x-api-key', scopes: ['*'] } },
      }),
    );
    expect(runtime).toEqual(build);
    expect(runtime).toEqual(expect.arrayContaining(['AUTH_SCOPE_REQUIRED', 'AUTH_REQUIRED']));
    // Off, a stray `scopes` implies nothing: no plugin would answer for it.
    expect(impliedErrorCodes(routeErrorFacts(route, { auth: {} }))).not.toContain('AUTH_SCOPE_REQUIRED');
  });

  it('a step-up route (mfa: true) documents that it refuses every key, as the guard answers', () => {
    const codes = impliedErrorCodes(
      routeErrorFacts({ method: 'POST', meta: { auth: true, mfa: true } }, { auth: { apiKeys: true } }),
    );
    expect(codes).toContain('AUTH_APIKEY_NOT_ALLOWED');
    expect(codes).not.toContain('AUTH_SCOPE_REQUIRED');
    expect(codes).not.toContain('AUTH_APIKEY_TENANT_MISMATCH');
  });
});
