// The shared-stores HTTP benches' baseline: auth and the global rate limit on svc's in-memory stores.
import { startStoresBenchServer } from './stores-server.js';

await startStoresBenchServer('memory');
