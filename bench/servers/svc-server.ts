// What every svc bench server does: an app with the plugins under test, the bench's two routes on one
// adapter, listening on a free loopback port and announcing its URL to the runner.
import { createApp, type AdapterOptions, type Plugin, type RouteMeta } from 'svckit';
import { GREETING, announce } from './shared.js';
import { benchRoutes } from './svc-routes.js';

export interface SvcBenchServer {
  adapter: (options: AdapterOptions) => Plugin;
  /** Registered before the adapter, in order. */
  plugins?: Plugin[];
  /** Meta added to both routes (the auth bench puts them behind `auth: true`). */
  meta?: RouteMeta;
}

export async function startSvcBenchServer({ adapter, plugins = [], meta }: SvcBenchServer): Promise<void> {
  const app = createApp({ name: 'bench' });
  for (const plugin of plugins) app.register(plugin);
  const routes = benchRoutes({ hello: () => GREETING, createItem: ({ body }) => body });
  app.register(
    adapter({
      routes: meta ? routes.map((route) => ({ ...route, meta: { ...route.meta, ...meta } })) : routes,
    }),
  );
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  announce(url);
}
