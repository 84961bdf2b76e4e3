// svc on Fastify with the bench's two routes, compiled from bench/spec/svc.config.yaml.
import { fastifyPlugin } from 'svckit/fastify';
import { startSvcBenchServer } from './svc-server.js';

await startSvcBenchServer({ adapter: fastifyPlugin });
