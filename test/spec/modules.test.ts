// modules.auth in an application: the loader loads svckit's spec/modules/auth.yaml, leaves out the routes the
// application omits, refuses clashes with the application's routes and resources (naming both places), and
// checks the module's options against svc.schema.json (unknown keys, durations, the cookie, the throttle).
import { MFA_ROUTE_IDS } from '../../runtime/auth/http/mfa-routes.js';
import { API_KEY_ROUTE_IDS } from '../../runtime/auth/http/apikey-routes.js';
import { OAUTH_ROUTE_IDS } from '../../runtime/auth/http/oauth-routes.js';
import { PASSKEY_ROUTE_IDS } from '../../runtime/auth/http/passkey-routes.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createAjv } from '../../shared/validation/ajv.js';
import { HEAD, expectOnly, load, loadModule, problemsOf } from './helpers.js';

const AUTH_YAML = fileURLToPath(new URL('../../spec/modules/auth.yaml', import.meta.url));
const AUTH_ROUTES = [
  'register',
  'login',
  'refresh',
  'logout',
  'me',
  'requestVerification',
  'verifyEmail',
  'forgotPassword',
  'resetPassword',
];

/** Every route of the module spec: the account routes, then the `mfa` feature's (on with modules.auth.mfa). */
// The routes of the features follow the account routes, as the module spec lists them.
const AUTH_MODULE_ROUTES = [
  ...AUTH_ROUTES,
  ...MFA_ROUTE_IDS,
  ...PASSKEY_ROUTE_IDS,
  ...API_KEY_ROUTE_IDS,
  ...OAUTH_ROUTE_IDS,
];

/** Line (1-based) of the first line of the module spec that starts with `text`, after indentation. */
function authLine(text: string): number {
  const lines = readFileSync(AUTH_YAML, 'utf8').split('\n');
  return lines.findIndex((line) => line.trimStart().startsWith(text)) + 1;
}

/** Line (1-based) of `text` in `yaml`. */
function lineOf(yaml: string, text: string): number {
  return yaml.slice(0, yaml.indexOf(text)).split('\n').length;
}

describe('spec/modules/auth.yaml', () => {
  it('loads as a module spec with the nine account routes and the four MFA routes', async () => {
    const ir = await loadModule(readFileSync(AUTH_YAML, 'utf8'));
    expect(ir.kind).toBe('module');
    expect(ir.name).toBe('auth');
    expect(ir.routes.map((route) => route.id)).toEqual(AUTH_MODULE_ROUTES);
    expect(ir.routes.find((route) => route.id === 'me')?.meta.auth).toBe(true);
  });

  it('names exactly its routes in svc.schema.json (modules.auth.routes)', async () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../spec/svc.schema.json', import.meta.url), 'utf8'),
    ) as { $defs: { authModule: { anyOf: [unknown, { properties: { routes: { properties: object } } }] } } };
    const ids = Object.keys(schema.$defs.authModule.anyOf[1].properties.routes.properties);
    expect(ids).toEqual(AUTH_MODULE_ROUTES);
  });
});

describe('modules.auth: enabling and omitting routes', () => {
  it('true enables every route and the resources they use, after the application in the IR', async () => {
    const ir = await load(`${HEAD}routes: {}\nmodules:\n  auth: true\n`);
    expect(ir.modules).toHaveLength(1);
    const [auth] = ir.modules!;
    expect(auth!.name).toBe('auth');
    expect(auth!.file).toBe(AUTH_YAML);
    expect(auth!.routes.map((route) => route.id)).toEqual(AUTH_ROUTES);
    expect(auth!.omittedRoutes).toEqual([]);
    expect(auth!.resources.map((resource) => resource.name)).toContain('SignedIn');
    // The application's own lists stay its own: routes.ts and validators.js are generated from them.
    expect(ir.routes).toEqual([]);
    expect(ir.resources).toEqual([]);
  });

  it('false, or no modules.auth, enables nothing', async () => {
    expect((await load(`${HEAD}routes: {}\nmodules:\n  auth: false\n`)).modules).toBeUndefined();
    expect((await load(`${HEAD}routes: {}\n`)).modules).toBeUndefined();
    expect((await load(`${HEAD}routes: {}\nmodules:\n  idempotency: true\n`)).modules).toBeUndefined();
  });

  it('a mapping of options enables it; routes: { <id>: false } leaves routes and their resources out', async () => {
    const ir = await load(
      `${HEAD}routes: {}\nmodules:\n  auth:\n    secret: \${SVC_SECRET:-}\n    routes: { register: false, me: false, login: true }\n`,
    );
    const [auth] = ir.modules!;
    expect(auth!.omittedRoutes).toEqual(['register', 'me']);
    expect(auth!.routes.map((route) => route.id)).not.toContain('register');
    expect(auth!.routes.map((route) => route.id)).toContain('login');
    const names = auth!.resources.map((resource) => resource.name);
    expect(names).not.toContain('Credentials'); // only register's body
    expect(names).not.toContain('Me'); // only me's response
    expect(names).toContain('PublicUser'); // through SignedIn
    expect(ir.config.modules).toMatchObject({ auth: { routes: { register: false, me: false } } });
  });

  it('an omitted route frees its id and path for a route of the application', async () => {
    const ir = await load(
      `${HEAD}modules:\n  auth: { routes: { register: false } }\nroutes:\n  register: { method: POST, path: /auth/register }\n`,
    );
    expect(ir.routes.map((route) => route.id)).toEqual(['register']);
    expect(ir.modules![0]!.routes.map((route) => route.id)).not.toContain('register');
  });
});

describe('modules.auth: clashes with the application', () => {
  it('refuses a route id the module uses, at the route, naming the module route with its file and line', async () => {
    const yaml = `${HEAD}modules:\n  auth: true\nroutes:\n  login: { method: POST, path: /sign-in }\n`;
    await expectOnly(yaml, {
      line: lineOf(yaml, '  login:'),
      column: 3,
      message: `route id 'login' clashes with route 'login' of the auth module (POST /auth/login, spec/modules/auth.yaml:${authLine('login:')}:3)`,
      hint: "rename this route, or leave the module's out: modules: { auth: { routes: { login: false } } }",
      path: 'routes.login',
    });
  });

  it('refuses a method and path the module routes, at the path', async () => {
    const yaml = `${HEAD}modules:\n  auth: true\nroutes:\n  signIn:\n    method: POST\n    path: /auth/login\n`;
    await expectOnly(yaml, {
      line: lineOf(yaml, 'path: /auth/login'),
      column: 11,
      message: `POST /auth/login of 'signIn' clashes with route 'login' of the auth module (POST /auth/login, spec/modules/auth.yaml:${authLine('login:')}:3)`,
      hint: "change the path or the method, or leave the module's route out: modules: { auth: { routes: { login: false } } }",
    });
  });

  it('lets a parameter route sit beside a literal path of the module (the literal wins at routing)', async () => {
    const ir = await load(
      `${HEAD}modules:\n  auth: true\nroutes:\n  byName:\n    method: GET\n    path: /auth/:name\n    params: { name: { type: string } }\n`,
    );
    expect(ir.routes.map((route) => route.id)).toEqual(['byName']);
  });

  it('refuses a resource of the same name declared differently, and keeps an identical one once', async () => {
    const differing = `${HEAD}modules:\n  auth: true\nroutes: {}\nresources:\n  PublicUser: { type: object }\n`;
    await expectOnly(differing, {
      line: lineOf(differing, 'PublicUser'),
      column: 3,
      message: `resource 'PublicUser' clashes with the resource of the same name of the auth module (spec/modules/auth.yaml:${authLine('PublicUser:')}:3), which is declared differently`,
      hint: 'rename this resource, or declare it exactly as the module does',
    });

    const module = parse(readFileSync(AUTH_YAML, 'utf8')) as { resources: { PublicUser: unknown } };
    const identical = `${HEAD}modules:\n  auth: true\nroutes: {}\nresources:\n  PublicUser: ${JSON.stringify(module.resources.PublicUser)}\n`;
    const ir = await load(identical);
    expect(ir.resources.map((resource) => resource.name)).toEqual(['PublicUser']);
    expect(ir.modules![0]!.resources.map((resource) => resource.name)).not.toContain('PublicUser');
  });

  it('lets a resource of the module that no kept route uses share its name freely', async () => {
    const ir = await load(
      `${HEAD}modules:\n  auth: { routes: { me: false } }\nroutes: {}\nresources:\n  Me: { type: string }\n`,
    );
    expect(ir.resources.map((resource) => resource.name)).toEqual(['Me']);
  });
});

describe('modules.auth: options', () => {
  const withAuth = (options: string) => `${HEAD}routes: {}\nmodules:\n  auth:\n${options}`;

  it('accepts every documented option', async () => {
    const ir = await load(
      withAuth(
        [
          '    secret: ${SVC_SECRET:-}',
          '    accessTtl: 15m',
          '    refreshTtl: 2592000000',
          "    sessionTtl: '${SESSION_TTL:-30d}'",
          '    verificationTtl: 24h',
          '    resetTtl: 1 h',
          '    sessionCookie: { name: sid, path: /, sameSite: strict, secure: true, domain: example.com }',
          '    loginThrottle: { maxAttempts: 5, maxAttemptsPerIp: 50, windowMs: 900000 }',
          '    routes: { forgotPassword: false }',
          '',
        ].join('\n'),
      ),
    );
    expect(ir.modules![0]!.omittedRoutes).toEqual(['forgotPassword']);
    expect(ir.config.modules).toMatchObject({
      auth: { accessTtl: '15m', sessionTtl: { $template: [{ env: 'SESSION_TTL', default: '30d' }] } },
    });
    const off = await load(withAuth('    loginThrottle: false\n'));
    expect(off.config.modules).toEqual({ auth: { loginThrottle: false } });
  });

  it('refuses an unknown option with a did-you-mean', async () => {
    await expectOnly(withAuth('    acessTtl: 15m\n'), {
      line: 7,
      column: 5,
      message: "unknown key 'acessTtl' in modules.auth",
      hint: "did you mean 'accessTtl'?",
    });
    await expectOnly(withAuth('    sessionCookie: { nmae: sid }\n'), {
      line: 7,
      column: 22,
      message: "unknown key 'nmae' in modules.auth.sessionCookie",
      hint: "did you mean 'name'?",
    });
  });

  it('refuses a ${VAR} where it decides which routes exist: the module itself, and routes.<id>', async () => {
    await expectOnly(`${HEAD}routes: {}\nmodules:\n  auth: \${AUTH:-true}\n`, {
      line: 6,
      column: 9,
      message:
        'modules.auth decides which routes the build documents, so it cannot be a ${VAR} resolved at start',
      hint: 'write true or false (or, for a module, a mapping of its options)',
    });
    const route = await problemsOf(withAuth("    routes: { register: '${REGISTER:-false}' }\n"));
    expect(route.problems.map((problem) => problem.path)).toEqual(['modules.auth.routes.register']);
  });

  it('refuses a route the module does not have', async () => {
    await expectOnly(withAuth('    routes: { lgin: false }\n'), {
      line: 7,
      column: 15,
      message: "unknown key 'lgin' in modules.auth.routes",
      hint: "did you mean 'login'?",
    });
  });

  it('refuses durations that are not durations, or shorter than a second', async () => {
    const words = await problemsOf(withAuth('    accessTtl: 15 minutes\n'));
    expect(words.problems).toHaveLength(1);
    expect(words.problems[0]).toMatchObject({ line: 7, path: 'modules.auth.accessTtl' });
    await expectOnly(withAuth('    resetTtl: 500ms\n'), {
      line: 7,
      column: 15,
      message: 'modules.auth.resetTtl: expected a duration of at least 1s but got "500ms"',
      hint: 'write milliseconds (at least 1000) or a number with a unit: 30s, 15m, 1h or 30d',
    });
    const short = await problemsOf(withAuth('    accessTtl: ${TTL:-999}\n'));
    expect(short.problems.map((problem) => problem.message)).toEqual([
      'modules.auth.accessTtl: expected a duration of at least 1s but got 999',
    ]);
  });

  it('refuses a bad cookie setting and a throttle that is neither false nor a mapping', async () => {
    const sameSite = await problemsOf(withAuth('    sessionCookie: { sameSite: relaxed }\n'));
    expect(sameSite.problems.map((problem) => problem.path)).toEqual(['modules.auth.sessionCookie.sameSite']);
    const name = await problemsOf(withAuth('    sessionCookie: { name: "my cookie" }\n'));
    expect(name.problems.map((problem) => problem.path)).toEqual(['modules.auth.sessionCookie.name']);
    const throttle = await problemsOf(withAuth('    loginThrottle: { maxAttempts: 0 }\n'));
    expect(throttle.problems.map((problem) => problem.message)).toEqual([
      'modules.auth.loginThrottle.maxAttempts: expected an integer of at least 1 but got 0',
    ]);
    const on = await problemsOf(withAuth('    loginThrottle: true\n'));
    expect(on.problems.map((problem) => problem.path)).toEqual(['modules.auth.loginThrottle']);
  });
});

describe('svc.schema.json: modules.auth as editors see it', () => {
  const schema = JSON.parse(readFileSync(new URL('../../spec/svc.schema.json', import.meta.url), 'utf8')) as {
    $id?: string;
  };
  const ajv = createAjv({ allowUnionTypes: true, useDefaults: false });
  const validate = ajv.compile(schema);
  const spec = (auth: unknown) => ({ svc: 1, name: 'a', version: '1', routes: {}, modules: { auth } });

  it('accepts true, false and the options; refuses unknown keys and bad values', () => {
    expect(validate(spec(true))).toBe(true);
    expect(validate(spec(false))).toBe(true);
    const options = {
      secret: '${SVC_SECRET}',
      accessTtl: '15m',
      refreshTtl: 2_592_000_000,
      sessionTtl: '${SESSION_TTL:-30d}',
      sessionCookie: { name: 'svc_session', path: '/', sameSite: 'lax', secure: '${COOKIE_SECURE:-true}' },
      loginThrottle: { maxAttempts: 5, maxAttemptsPerIp: 50, windowMs: 900_000 },
      routes: { register: false, me: true },
    };
    expect(validate(spec(options)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(spec({ ...options, loginThrottle: false }))).toBe(true);
    expect(validate(spec({ acessTtl: '15m' }))).toBe(false);
    expect(validate(spec({ accessTtl: '15 minutes' }))).toBe(false);
    expect(validate(spec({ routes: { lgin: false } }))).toBe(false);
    expect(validate(spec({ sessionCookie: { sameSite: 'Lax' } }))).toBe(false);
    expect(validate(spec({ loginThrottle: true }))).toBe(false);
  });
});
