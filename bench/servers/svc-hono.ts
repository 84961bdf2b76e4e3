// svc on Hono with the bench's two routes, compiled from bench/spec/svc.config.yaml.
import { honoPlugin } from 'svckit/hono';
import { startSvcBenchServer } from './svc-server.js';

await startSvcBenchServer({ adapter: honoPlugin });
