// Module features: the auth module's four MFA routes (`features: { mfa: [...] }` in spec/modules/auth.yaml)
// exist in an application's IR, openapi.json and client only with `modules.auth.mfa: true`; `requireMfa`
// without `mfa` is a build problem; a module spec's features must name its own routes, once each.
import { MFA_ROUTE_IDS } from '../../runtime/auth/http/mfa-routes.js';
import { API_KEY_ROUTE_IDS } from '../../runtime/auth/http/apikey-routes.js';
import { OAUTH_ROUTE_IDS } from '../../runtime/auth/http/oauth-routes.js';
import { PASSKEY_ROUTE_IDS } from '../../runtime/auth/http/passkey-routes.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emitClient } from '../../generator/emit-client.js';
import { emitOpenApi } from '../../generator/emit-openapi.js';
import { HEAD, expectOnly, load, loadModule, problemsOf } from './helpers.js';

const AUTH_YAML = fileURLToPath(new URL('../../spec/modules/auth.yaml', import.meta.url));
// The runtime's list (the routes it leaves unmounted without an MfaService) is the spec's `features.mfa`.
const MFA_ROUTES: readonly string[] = MFA_ROUTE_IDS;
const MFA_PATHS = ['/auth/mfa/enroll', '/auth/mfa/activate', '/auth/mfa/status', '/auth/mfa/disable'];
const MFA_RESOURCES = ['MfaEnrollment', 'MfaCodeInput', 'MfaRecoveryCodes', 'MfaStatus'];

function lineOf(yaml: string, text: string): number {
  return yaml.slice(0, yaml.indexOf(text)).split('\n').length;
}

async function authOf(modules: string) {
  const ir = await load(`${HEAD}routes: {}\nmodules:\n${modules}`);
  const auth = ir.modules?.find((module) => module.name === 'auth');
  if (!auth) throw new Error('modules.auth is not on');
  return { ir, auth, routeIds: auth.routes.map((route) => route.id) };
}

describe('spec/modules/auth.yaml: the mfa feature', () => {
  it('lists the four MFA routes under features.mfa, and mfa is a boolean option of modules.auth', async () => {
    const spec = await loadModule(readFileSync(AUTH_YAML, 'utf8'));
    expect(spec.features).toEqual({
      mfa: MFA_ROUTES,
      passkeys: PASSKEY_ROUTE_IDS,
      apiKeys: API_KEY_ROUTE_IDS,
      oauth: OAUTH_ROUTE_IDS,
    });
    const schema = JSON.parse(
      readFileSync(new URL('../../spec/svc.schema.json', import.meta.url), 'utf8'),
    ) as { $defs: { authModule: { anyOf: [unknown, { properties: Record<string, { type?: string }> }] } } };
    // A feature is turned on by a boolean option, or by the mapping of its settings (passkeys).
    expect(schema.$defs.authModule.anyOf[1].properties.mfa?.type).toBe('boolean');
    expect(schema.$defs.authModule.anyOf[1].properties.passkeys?.type).toBe('object');
  });

  it('the MFA routes refuse API keys, are account routes; all but disable are exempt from the policy, which asks for a second factor', async () => {
    const spec = await loadModule(readFileSync(AUTH_YAML, 'utf8'));
    const meta = Object.fromEntries(spec.routes.map((route) => [route.id, route.meta]));
    for (const id of MFA_ROUTES) expect(meta[id]).toMatchObject({ auth: true, apiKey: false, account: true });
    // Disable is step-up: a password-only token cannot try codes to turn the factor off.
    expect(MFA_ROUTES.map((id) => meta[id]!.mfa)).toEqual([false, false, false, true]);
    // The answers that carry a secret are never stored under an idempotency key.
    expect(meta.mfaEnroll!.idempotency).toBe(false);
    expect(meta.mfaActivate!.idempotency).toBe(false);
  });
});

describe('modules.auth.mfa gates the MFA routes', () => {
  it('without mfa (auth: true, or mfa: false) the routes and their resources are absent', async () => {
    for (const modules of ['  auth: true\n', '  auth: { mfa: false }\n']) {
      const { ir, auth, routeIds } = await authOf(modules);
      expect(routeIds).toContain('login');
      for (const id of MFA_ROUTES) expect(routeIds).not.toContain(id);
      expect(auth.omittedRoutes).toEqual([]);
      const resources = auth.resources.map((resource) => resource.name);
      for (const name of MFA_RESOURCES) expect(resources).not.toContain(name);
      const paths = Object.keys(emitOpenApi(ir, { header: '' }).paths);
      for (const path of MFA_PATHS) expect(paths).not.toContain(path);
      expect(emitClient(ir, { header: '' })).not.toContain('mfaEnroll');
    }
  });

  it('with mfa: true the routes, their resources, the openapi.json paths and the client methods are there', async () => {
    const { ir, auth, routeIds } = await authOf('  auth: { mfa: true }\n');
    expect(routeIds.slice(-4)).toEqual(MFA_ROUTES);
    const resources = auth.resources.map((resource) => resource.name);
    for (const name of MFA_RESOURCES) expect(resources).toContain(name);
    const paths = emitOpenApi(ir, { header: '' }).paths;
    for (const path of MFA_PATHS) expect(Object.keys(paths)).toContain(path);
    expect(paths['/auth/mfa/disable']).toHaveProperty('post');
    expect(paths['/auth/mfa/status']).toHaveProperty('get');
    const client = emitClient(ir, { header: '' });
    for (const id of MFA_ROUTES) expect(client).toContain(id);
  });

  it('routes: { <mfa route>: false } still omits one of them', async () => {
    const { auth, routeIds } = await authOf('  auth: { mfa: true, routes: { mfaStatus: false } }\n');
    expect(routeIds).not.toContain('mfaStatus');
    expect(routeIds).toContain('mfaEnroll');
    expect(auth.omittedRoutes).toEqual(['mfaStatus']);
  });

  it('mfa as a ${VAR} is refused: it decides which routes the build documents', async () => {
    const { problems } = await problemsOf(`${HEAD}routes: {}\nmodules:\n  auth:\n    mfa: \${MFA:-true}\n`);
    expect(problems.map(({ path, message }) => ({ path, message }))).toEqual([
      {
        path: 'modules.auth.mfa',
        message:
          'modules.auth.mfa decides which routes the build documents, so it cannot be a ${VAR} resolved at start',
      },
    ]);
  });
});

describe('modules.auth.requireMfa', () => {
  it('without mfa is a build problem at requireMfa', async () => {
    const yaml = `${HEAD}routes: {}\nmodules:\n  auth:\n    requireMfa: true\n`;
    await expectOnly(yaml, {
      line: lineOf(yaml, 'requireMfa'),
      column: 17,
      path: 'modules.auth.requireMfa',
      message: 'modules.auth.requireMfa needs modules.auth.mfa: true, which this spec does not set',
      hint: 'add mfa: true under modules.auth, or remove requireMfa',
    });
    const off = `${HEAD}routes: {}\nmodules:\n  auth: { mfa: false, requireMfa: true }\n`;
    const { problems } = await problemsOf(off);
    expect(problems.map((problem) => problem.path)).toEqual(['modules.auth.requireMfa']);
  });

  it('with mfa: true loads; requireMfa: false asks for nothing', async () => {
    expect((await authOf('  auth: { mfa: true, requireMfa: true }\n')).routeIds).toContain('mfaEnroll');
    expect((await authOf('  auth: { requireMfa: false }\n')).routeIds).not.toContain('mfaEnroll');
  });
});

describe('a module spec: features', () => {
  const MODULE = `svc: 1
module: demo
version: 1.0.0
routes:
  one: { method: GET, path: /one, response: { 204: null } }
  two: { method: GET, path: /two, response: { 204: null } }
`;

  it('names route ids by the option that turns them on', async () => {
    const spec = await loadModule(`${MODULE}features:\n  extra: [two]\n`);
    expect(spec.features).toEqual({ extra: ['two'] });
    expect((await loadModule(MODULE)).features).toBeUndefined();
  });

  it('refuses an id that is no route of the spec, with a did-you-mean, and a route under two features', async () => {
    const unknown = await problemsOf(`${MODULE}features:\n  extra: [tow]\n`, {}, 'module');
    expect(unknown.problems).toHaveLength(1);
    expect(unknown.problems[0]).toMatchObject({
      path: 'features.extra',
      message: "feature 'extra' lists 'tow', which is no route of this spec",
      hint: "did you mean 'two'?",
    });
    const twice = await problemsOf(`${MODULE}features:\n  a: [two]\n  b: [two]\n`, {}, 'module');
    expect(twice.problems.map((problem) => problem.message)).toEqual([
      "route 'two' is listed under feature 'a' already; a route belongs to one feature at most",
    ]);
  });

  it('is a module spec key only: an application may not declare features', async () => {
    const { problems } = await problemsOf(`${HEAD}routes: {}\nfeatures: { x: [a] }\n`);
    expect(problems.map((problem) => problem.path)).toEqual(['features']);
  });
});
