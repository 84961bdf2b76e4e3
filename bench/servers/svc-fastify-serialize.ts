// svc on Fastify with the serialize bench's routes from bench/spec/svc.config.yaml: answers leave through the
// serializers `svc build` compiled into bench/spec/generated/serializers.js.
import { createApp } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { PRODUCT_PAGE, announce, createdProduct } from './shared.js';
import { benchRoutes } from './svc-routes.js';

const app = createApp({ name: 'bench' });
const routes = benchRoutes({
  listProducts: () => PRODUCT_PAGE,
  createProduct: ({ body }) => createdProduct(body),
});
app.register(fastifyPlugin({ routes }));
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
announce(url);
