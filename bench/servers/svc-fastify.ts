// svc on Fastify with the bench's two routes, compiled from bench/spec/svc.config.yaml.
import { createApp } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { routes } from '../spec/generated/routes.js';
import { GREETING, announce } from './shared.js';

const app = createApp({ name: 'bench' });
app.register(
  fastifyPlugin({
    routes: routes({
      hello: () => GREETING,
      createItem: ({ body }) => body,
    }),
  }),
);
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
announce(url);
