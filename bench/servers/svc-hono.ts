// svc on Hono with the bench's two routes, compiled from bench/spec/svc.config.yaml.
import { createApp } from 'svckit';
import { honoPlugin } from 'svckit/hono';
import { GREETING, announce } from './shared.js';
import { benchRoutes } from './svc-routes.js';

const app = createApp({ name: 'bench' });
app.register(
  honoPlugin({
    routes: benchRoutes({
      hello: () => GREETING,
      createItem: ({ body }) => body,
    }),
  }),
);
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
announce(url);
