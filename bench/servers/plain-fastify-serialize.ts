// Plain Fastify with the serialize bench's routes and response schemas, so Fastify writes each answer through
// fast-json-stringify with only the declared fields: the baseline svc's compiled serializers are measured
// against.
import Fastify from 'fastify';
import {
  PRODUCT_INPUT_SCHEMA,
  PRODUCT_PAGE,
  PRODUCT_PAGE_SCHEMA,
  PRODUCT_SCHEMA,
  announce,
  createdProduct,
  type ProductInput,
} from './shared.js';

const app = Fastify({ logger: false });
app.get('/products', { schema: { response: { 200: PRODUCT_PAGE_SCHEMA } } }, async () => PRODUCT_PAGE);
app.post(
  '/products',
  { schema: { body: PRODUCT_INPUT_SCHEMA, response: { 201: PRODUCT_SCHEMA } } },
  async (request, reply) => {
    reply.code(201);
    return createdProduct(request.body as ProductInput);
  },
);
announce(await app.listen({ port: 0, host: '127.0.0.1' }));
