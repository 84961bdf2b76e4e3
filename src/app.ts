// The reference service: the spec's routes bound to their handlers, served by the adapter svc.config.yaml
// names (`server.adapter: ${SVC_ADAPTER:-fastify}`), with the modules it enables and its state in the
// stores it selects (`stores.database`, `stores.redis`).
// Each part from its own entry (`svckit` alone would do too): an app loads only the features it imports.
import { adapterPlugin, createApp, type App } from 'svckit/core';
import { authModule } from 'svckit/auth';
import { edgePlugins } from 'svckit/edge';
import { idempotencyPlugins } from 'svckit/idempotency';
import { mcpModule } from 'svckit/mcp';
import { openStores } from 'svckit/stores';
import type { SvcConfig } from '../generated/config.js';
import mcpTools from '../generated/mcp-tools.json' with { type: 'json' };
import openapi from '../generated/openapi.json' with { type: 'json' };
import { routes } from '../generated/routes.js';
import { logMailsInDevelopment } from './modules/mail/dev-mail-log.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { MemoryNoteStore } from './modules/notes/notes.store.js';

export async function buildApp(config: SvcConfig): Promise<App> {
  const app = createApp({ name: config.name, version: config.version });
  // Accounts, sessions and tokens in PostgreSQL (by default an embedded one under .svc/data) and, when
  // REDIS_URL is set, the hot state in Redis. Pending migrations are applied here, at start.
  const stores = await openStores(config.stores, { migrate: true, logger: app.logger });
  app.hooks.on('app:closing', () => stores.close());
  const handlers = createNoteHandlers(new MemoryNoteStore());
  // Accounts and sign-in (`modules.auth`): the signing secret comes from SVC_SECRET, or in development
  // from .svc/secret; a production start without a strong one refuses to boot.
  const auth = authModule(config.modules.auth, { stores });
  // The edge plugins and idempotency keys svc.config.yaml enables under `modules`; /readyz checks the stores.
  const modules = [
    ...(auth?.plugins ?? []),
    ...edgePlugins(config.modules.edge, {
      serviceName: config.name,
      openapiDocument: openapi,
      healthChecks: stores.healthChecks,
      rateLimitStore: stores.rateLimit,
    }),
    ...idempotencyPlugins(config.modules.idempotency, { store: stores.idempotency }),
    // The agent-tool endpoint: the routes marked `mcp: true` as tools, at /mcp and through `svc mcp`; its
    // sessions live with the other hot state, so every process serves them.
    ...mcpModule(config.modules.mcp, {
      tools: mcpTools,
      sessionStore: stores.mcpSessions,
      // Anonymous agents' sessions are keyed with the service's secret, whichever way auth found it.
      ...(auth === undefined ? {} : { secret: auth.secret }),
    }),
  ];
  for (const plugin of modules) app.register(plugin);
  if (auth) logMailsInDevelopment(app);
  app.register(await adapterPlugin(config.server.adapter, { routes: [...routes({ ...handlers })] }));
  return app;
}
