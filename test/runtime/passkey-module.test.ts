// `modules.auth.passkeys` in svc.config.yaml: the mapping turns the passkey routes on for the build (IR,
// openapi.json, client) and the runtime builds the PasskeyService from it, on the stores openStores gives;
// every setting is checked, and production refuses to keep passkeys in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitClient } from '../../generator/emit-client.js';
import { emitOpenApi } from '../../generator/emit-openapi.js';
import { authModule } from '../../runtime/auth/config.js';
import { PASSKEY_ROUTE_IDS } from '../../runtime/auth/http/passkey-routes.js';
import { MemoryChallengeStore, MemoryPasskeyStore } from '../../runtime/auth/passkeys/memory-store.js';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.js';
import { thrown } from '../http/auth-harness.js';
import { HEAD, load, problemsOf } from '../spec/helpers.js';

const PASSKEYS = { rpId: 'localhost', origins: ['http://localhost:3000'] };
const PASSKEY_PATHS = [
  '/auth/passkeys/register/options',
  '/auth/passkeys/login/verify',
  '/auth/passkeys/{id}',
];

async function authRoutesOf(modules: string) {
  const ir = await load(`${HEAD}routes: {}\nmodules:\n${modules}`);
  const auth = ir.modules?.find((module) => module.name === 'auth');
  if (!auth) throw new Error('modules.auth is not on');
  return { ir, routeIds: auth.routes.map((route) => route.id) };
}

describe('modules.auth.passkeys in the spec', () => {
  it('names the six passkey routes, the ones the runtime leaves out without passkeys', () => {
    expect(PASSKEY_ROUTE_IDS).toEqual([
      'passkeyRegisterOptions',
      'passkeyRegisterVerify',
      'passkeyLoginOptions',
      'passkeyLoginVerify',
      'passkeyList',
      'passkeyRemove',
    ]);
  });

  it('the mapping turns the six routes on in the IR, openapi.json and the client; without it they are absent', async () => {
    const on = await authRoutesOf(
      "  auth:\n    passkeys: { rpId: localhost, origins: ['${SVC_PUBLIC_URL:-http://localhost:3000}'] }\n",
    );
    for (const id of PASSKEY_ROUTE_IDS) expect(on.routeIds).toContain(id);
    const paths = Object.keys(emitOpenApi(on.ir, { header: '' }).paths);
    for (const path of PASSKEY_PATHS) expect(paths).toContain(path);
    expect(emitClient(on.ir, { header: '' })).toContain('passkeyLoginVerify');

    for (const modules of ['  auth: true\n', '  auth: { mfa: true }\n']) {
      const off = await authRoutesOf(modules);
      expect(off.routeIds).toContain('login');
      for (const id of PASSKEY_ROUTE_IDS) expect(off.routeIds).not.toContain(id);
      expect(Object.keys(emitOpenApi(off.ir, { header: '' }).paths)).not.toContain(PASSKEY_PATHS[0]);
    }
  });

  it('refuses a mapping without rpId or origins, an unknown setting, and a ${VAR} in place of the mapping', async () => {
    const problems = async (passkeys: string) =>
      (
        await problemsOf(`${HEAD}routes: {}\nmodules:\n  auth:\n    passkeys: ${passkeys}\n`, {
          PASSKEYS: '{ rpId: localhost, origins: [x] }',
        })
      ).error.message;
    expect(await problems('{ origins: [http://localhost:3000] }')).toContain('rpId');
    expect(await problems('{ rpId: localhost }')).toContain('origins');
    expect(await problems('{ rpId: localhost, origins: [] }')).toContain('origins');
    expect(await problems('{ rpId: localhost, origins: [x], rpID: y }')).toContain('rpID');
    expect(await problems('{ rpId: localhost, origins: [x], userVerification: always }')).toContain(
      'userVerification',
    );
    expect(await problems("'${PASSKEYS}'")).toContain('passkeys');
  });
});

describe('modules.auth.passkeys at run time', () => {
  const projectDir = mkdtempSync(join(tmpdir(), 'svc-passkey-module-'));
  afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
  const development = { NODE_ENV: 'development' };

  it('builds the passkey service on the stores it is given, named after the service unless rpName says', async () => {
    const passkeys = new MemoryPasskeyStore();
    const webauthnChallenges = new MemoryChallengeStore();
    const context = {
      env: development,
      projectDir,
      serviceName: 'Notes API',
      stores: { passkeys, webauthnChallenges },
    };
    const built = authModule({ passkeys: PASSKEYS }, context)!;
    expect(built.auth.passkeysEnabled).toBe(true);
    const service = built.auth.passkeys!;
    expect([service.rpId, service.rpName, service.origins, service.userVerification]).toEqual([
      'localhost',
      'Notes API',
      ['http://localhost:3000'],
      'preferred',
    ]);
    const options = await service.startRegistration('k', { id: 'u1', name: 'ada@example.com' });
    const device = new SoftwareAuthenticator({ origin: 'http://localhost:3000' });
    const view = await service.finishRegistration('k', 'u1', device.register(options));
    // The credential went to the store the context gave, not to one of the service's own.
    expect((await passkeys.get(view.id))?.userId).toBe('u1');

    const named = authModule(
      { passkeys: { ...PASSKEYS, rpName: 'Notes', userVerification: 'required' } },
      context,
    )!.auth.passkeys!;
    expect([named.rpName, named.userVerification]).toEqual(['Notes', 'required']);
    expect(authModule(true, context)!.auth.passkeysEnabled).toBe(false);
  });

  it('refuses what is not a mapping, unknown settings and a relying party the browser would refuse', () => {
    const context = { env: development, projectDir, serviceName: 'api' };
    for (const setting of [true, 'yes', ['localhost']]) {
      expect(thrown(() => authModule({ passkeys: setting }, context)).code).toBe('CONFIG_INVALID');
    }
    const unknown = thrown(() => authModule({ passkeys: { ...PASSKEYS, origin: 'x' } }, context));
    expect([unknown.code, unknown.message]).toEqual([
      'CONFIG_INVALID',
      expect.stringContaining('did you mean "origins"'),
    ]);
    for (const origins of [['http://example.com'], ['https://localhost.evil.com'], ['localhost:3000'], []]) {
      const refused = thrown(() => authModule({ passkeys: { rpId: 'localhost', origins } }, context));
      expect(refused.code).toBe('CONFIG_INVALID');
      expect(refused.message).toContain('modules.auth.passkeys');
    }
    const badRp = thrown(() => authModule({ passkeys: { ...PASSKEYS, rpId: 'http://localhost' } }, context));
    expect(badRp.message).toContain('rpId');
    const noName = thrown(() => authModule({ passkeys: PASSKEYS }, { env: development, projectDir }));
    expect(noName.message).toContain('rpName');
  });

  it('leaves out an empty origin (an optional ${VAR:-} unset), and needs one left', () => {
    const context = { env: development, projectDir, serviceName: 'api' };
    const origins = ['http://localhost:4000', ''];
    const built = authModule({ passkeys: { rpId: 'localhost', origins } }, context)!;
    expect(built.auth.passkeys!.origins).toEqual(['http://localhost:4000']);
    const none = thrown(() => authModule({ passkeys: { rpId: 'localhost', origins: [''] } }, context));
    expect([none.code, none.message]).toEqual(['CONFIG_INVALID', expect.stringContaining('origin')]);
  });

  it("the reference service's origins follow PORT, and SVC_PUBLIC_URL adds one", async () => {
    const { loadConfig } = await import('../../generated/config.js');
    const passkeysOf = (env: Record<string, string>) => {
      const config = loadConfig({ NODE_ENV: 'test', ...env }) as unknown as {
        modules: { auth: { passkeys: { origins: string[] } } };
      };
      const built = authModule(config.modules.auth, { env: development, projectDir, serviceName: 'notes' })!;
      return built.auth.passkeys!.origins;
    };
    expect(passkeysOf({})).toEqual(['http://localhost:3000']);
    expect(passkeysOf({ PORT: '4100' })).toEqual(['http://localhost:4100']);
    expect(passkeysOf({ PORT: '4100', SVC_PUBLIC_URL: 'http://localhost:8080' })).toEqual([
      'http://localhost:4100',
      'http://localhost:8080',
    ]);
  });

  it('in production refuses to keep passkeys in memory', () => {
    const production = { NODE_ENV: 'production', SVC_SECRET: 'a-production-secret-of-at-least-32-chars!' };
    const inMemory = thrown(() =>
      authModule({ passkeys: PASSKEYS }, { env: production, projectDir, serviceName: 'api' }),
    );
    expect([inMemory.code, inMemory.message]).toEqual([
      'CONFIG_INVALID',
      expect.stringContaining('stores.database'),
    ]);
    const stores = { passkeys: new MemoryPasskeyStore() };
    expect(
      authModule({ passkeys: PASSKEYS }, { env: production, projectDir, serviceName: 'api', stores })!.auth
        .passkeysEnabled,
    ).toBe(true);
  });
});
