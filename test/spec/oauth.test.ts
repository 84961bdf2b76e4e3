// `modules.auth.oauth`: the option that adds the provider sign-in routes to the build (served, documented, in
// the client), the settings the schema refuses, and a route that only redirects documenting no 200.
import { describe, expect, it } from 'vitest';
import { OAUTH_ROUTE_IDS } from '../../runtime/auth/http/oauth-routes.js';
import { emitOpenApi } from '../../generator/emit-openapi.js';
import { HEAD, load, problemsOf } from './helpers.js';

const OIDC = "{ providers: { corp: { issuer: 'https://id.example.com', clientId: a, clientSecret: b } } }";

async function routeIds(modules: string): Promise<string[]> {
  return (await load(`${HEAD}routes: {}\nmodules:\n${modules}`)).modules![0]!.routes.map((route) => route.id);
}

describe('modules.auth.oauth turns the provider sign-in routes on', () => {
  it('adds the five routes with a mapping, never with auth: true alone', async () => {
    for (const id of OAUTH_ROUTE_IDS) expect(await routeIds('  auth: true\n')).not.toContain(id);
    const on = await routeIds(`  auth: { oauth: ${OIDC} }\n`);
    for (const id of OAUTH_ROUTE_IDS) expect(on).toContain(id);
  });

  it('documents the start as a redirect only and the callback as SignedIn or a redirect', async () => {
    const ir = await load(`${HEAD}routes: {}\nmodules:\n  auth: { oauth: ${OIDC} }\n`);
    const routes = ir.modules![0]!.routes;
    expect(Object.keys(routes.find((route) => route.id === 'oauthStart')!.responses)).toEqual(['302']);
    expect(Object.keys(routes.find((route) => route.id === 'oauthCallback')!.responses).sort()).toEqual([
      '200',
      '302',
    ]);
    const document = emitOpenApi(ir, { header: '' }) as unknown as {
      paths: Record<string, { get?: { responses: object } }>;
    };
    expect(Object.keys(document.paths['/auth/oauth/{provider}']!.get!.responses)).not.toContain('200');
  });

  it.each([
    ['an unknown option', '{ providers: {}, pkce: plain }'],
    [
      'a provider name that is no URL segment',
      "{ providers: { 'Corp Id': { clientId: a, clientSecret: b } } }",
    ],
    ['an unknown provider type', '{ providers: { corp: { type: saml, clientId: a, clientSecret: b } } }'],
    ['a subjectConflict other than link', '{ providers: {}, subjectConflict: merge }'],
    ['mfa other than skip', '{ providers: {}, mfa: never }'],
    ['rateLimit: true', '{ providers: {}, rateLimit: true }'],
    ['no providers', '{ callbackBaseUrl: https://api.example.com }'],
  ])('refuses %s', async (_what, oauth) => {
    const { problems } = await problemsOf(`${HEAD}routes: {}\nmodules:\n  auth: { oauth: ${oauth} }\n`);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]?.path).toMatch(/^modules\.auth\.oauth/);
  });
});

describe('a route that only redirects', () => {
  it('documents no implicit 200, while a route without a success status still gets one', async () => {
    const ir = await load(
      `${HEAD}routes:\n  go: { method: GET, path: /go, response: { 302: null } }\n  any: { method: GET, path: /any, response: { 404: null } }\n`,
    );
    const [go, any] = ir.routes;
    expect(Object.keys(go!.responses)).toEqual(['302']);
    expect(Object.keys(any!.responses).sort()).toEqual(['200', '404']);
  });
});
