// svc on Express with the bench's two routes, compiled from bench/spec/svc.config.yaml.
import { expressPlugin } from 'svckit/express';
import { startSvcBenchServer } from './svc-server.js';

await startSvcBenchServer({ adapter: expressPlugin });
