// Plain Fastify with the bench's two routes: the baseline svc-on-Fastify is measured against.
import Fastify from 'fastify';
import { GREETING, ITEM_SCHEMA, announce } from './shared.js';

const app = Fastify({ logger: false });
app.get('/hello', async () => GREETING);
app.post('/items', { schema: { body: ITEM_SCHEMA } }, async (request, reply) => {
  reply.code(201);
  return request.body;
});
announce(await app.listen({ port: 0, host: '127.0.0.1' }));
