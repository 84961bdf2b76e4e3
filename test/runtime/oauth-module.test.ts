// `modules.auth.oauth` at start: the providers it builds (a provider whose clientId or issuer is an unset
// `${VAR:-}` left out), the refusals (settings, several providers without domain rules, production without a
// database for the links), and that the plugin it adds mounts the provider routes after authPlugin.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../runtime/app/app.js';
import { authModule } from '../../runtime/auth/config.js';
import { OAUTH_ROUTE_IDS } from '../../runtime/auth/http/oauth-routes.js';
import { MemoryAccountLinkStore } from '../../runtime/auth/stores/memory-account-links.js';
import { codeOf, thrown } from '../http/auth-harness.js';
import { adapters, call, withServer } from '../http/harness.js';

const projectDir = mkdtempSync(join(tmpdir(), 'svc-oauth-module-'));
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
const development = { NODE_ENV: 'development' };
const context = { env: development, projectDir, serviceName: 'api' };
const CORP = { issuer: 'https://id.example.com', clientId: 'a', clientSecret: 'b' };

async function mountedRoutes(setting: unknown): Promise<string[]> {
  const built = authModule(setting, context)!;
  const app = createApp({ name: 'test' });
  for (const plugin of built.plugins) app.register(plugin);
  await app.boot();
  return app.metadata.list('http:routes').flatMap((route) => (route.id === undefined ? [] : [route.id]));
}

describe('modules.auth.oauth at start', () => {
  it('mounts the provider routes, and none without the setting', async () => {
    const on = await mountedRoutes({ oauth: { providers: { corp: CORP } } });
    for (const id of OAUTH_ROUTE_IDS) expect(on).toContain(id);
    const off = await mountedRoutes({});
    for (const id of OAUTH_ROUTE_IDS) expect(off).not.toContain(id);
  });

  it('gives the two sign-in routes 10 a minute per IP, and rateLimit: false removes it', async () => {
    const limits = async (oauth: Record<string, unknown>) => {
      const built = authModule({ oauth: { providers: { corp: CORP }, ...oauth } }, context)!;
      const app = createApp({ name: 'test' });
      for (const plugin of built.plugins) app.register(plugin);
      await app.boot();
      return Object.fromEntries(
        app.metadata
          .list('http:routes')
          .filter(
            (route) => route.id === 'oauthStart' || route.id === 'oauthCallback' || route.id === 'oauthMfa',
          )
          .map((route) => [route.id, route.meta?.rateLimit]),
      );
    };
    expect(await limits({})).toEqual({
      oauthStart: { limit: 10, windowMs: 60000, exact: true },
      oauthCallback: { limit: 10, windowMs: 60000, exact: true },
      oauthMfa: { limit: 30, windowMs: 60000, exact: true },
    });
    expect(await limits({ rateLimit: false })).toEqual({
      oauthStart: undefined,
      oauthCallback: undefined,
      oauthMfa: { limit: 30, windowMs: 60000, exact: true },
    });
  });

  it('leaves out the provider routes modules.auth.routes omits, as the build documents', async () => {
    const mounted = await mountedRoutes({
      oauth: { providers: { corp: CORP } },
      routes: { accountLinkRemove: false, oauthMfa: false },
    });
    expect(mounted).toContain('accountLinkList');
    expect(mounted).not.toContain('accountLinkRemove');
    expect(mounted).not.toContain('oauthMfa');
  });

  it('leaves out a provider whose clientId or issuer is empty (an unset ${VAR:-})', async () => {
    const providers = { corp: { ...CORP, issuer: '' }, github: { clientId: '', clientSecret: '' } };
    const built = authModule({ oauth: { providers } }, context)!;
    await withServer(adapters[0]!, { routes: [], plugins: built.plugins }, async (url) => {
      const started = await call(`${url}/auth/oauth/corp`, { redirect: 'manual' });
      expect(started.status).toBe(404);
      expect(codeOf(started.json)).toBe('AUTH_OAUTH_UNKNOWN_PROVIDER');
    });
  });

  it.each([
    ['an unknown setting', { providers: { corp: CORP }, pkce: 'plain' }, 'pkce'],
    ['an unknown provider setting', { providers: { corp: { ...CORP, tenant: 'x' } } }, 'tenant'],
    [
      'domains on a preset',
      { providers: { github: { clientId: 'a', clientSecret: 'b', allowAnyEmailDomain: true } } },
      'allowAnyEmailDomain',
    ],
    [
      'a client id without its secret',
      { providers: { corp: { ...CORP, clientSecret: '' } } },
      'clientSecret',
    ],
    ['a bad timeout', { providers: { corp: CORP }, timeoutMs: 0 }, 'timeoutMs'],
    ['a timeout past ten minutes', { providers: { corp: CORP }, timeoutMs: 600_001 }, 'timeoutMs'],
  ])('refuses %s', (_what, oauth, named) => {
    const refused = thrown(() => authModule({ oauth }, context));
    expect(refused.code).toBe('CONFIG_INVALID');
    expect(refused.message).toContain(named);
  });

  it('refuses several providers where an OpenID one has no email-domain rule', () => {
    const refused = thrown(() =>
      authModule(
        { oauth: { providers: { corp: CORP, github: { clientId: 'c', clientSecret: 'd' } } } },
        context,
      ),
    );
    expect(refused.code).toBe('AUTH_OAUTH_PROVIDER_CONFIG');
    const allowed = authModule(
      {
        oauth: {
          providers: {
            corp: { ...CORP, allowedEmailDomains: ['example.com'] },
            github: { clientId: 'c', clientSecret: 'd' },
            google: { clientId: 'e', clientSecret: 'f' },
          },
        },
      },
      context,
    );
    expect(allowed?.plugins.map((plugin) => plugin.name)).toContain('svc:oauth');
  });

  it('in production refuses to keep the links in memory', () => {
    const production = { NODE_ENV: 'production', SVC_SECRET: 'a-production-secret-of-at-least-32-chars!' };
    const refused = thrown(() =>
      authModule({ oauth: { providers: { corp: CORP } } }, { ...context, env: production }),
    );
    expect([refused.code, refused.message]).toEqual([
      'CONFIG_INVALID',
      expect.stringContaining('stores.database'),
    ]);
    const links = new MemoryAccountLinkStore();
    const built = authModule(
      { oauth: { providers: { corp: CORP } } },
      {
        ...context,
        env: production,
        stores: { accountLinks: links },
      },
    )!;
    expect(built.auth.accountLinks).toBe(links);
  });
});
