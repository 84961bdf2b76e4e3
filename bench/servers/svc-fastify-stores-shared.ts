// The shared-stores HTTP benches' subject: the same server with users in PostgreSQL and sessions and rate
// limits in Redis.
import { startStoresBenchServer } from './stores-server.js';

await startStoresBenchServer('shared');
