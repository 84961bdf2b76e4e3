// The login server of the shared-stores bench: the login bench server on the stores BENCH_STORES names
// (memory or shared, bench/servers/stores-env.ts), with the login throttle counting in them.
import { startLoginBenchServer } from './login-server.js';
import { BENCH_STORES_ENV, benchAuth, benchStoresKind } from './stores-env.js';

const { auth } = await benchAuth(benchStoresKind(process.env[BENCH_STORES_ENV]));
await startLoginBenchServer(auth);
