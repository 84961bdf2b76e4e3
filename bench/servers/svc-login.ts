// The login bench server: svc on Fastify with the account routes and one registered user (scrypt at its
// default cost), stores in memory, no throttle.
import { Auth } from 'svckit';
import { BENCH_AUTH_SECRET, LOGIN_USER } from './auth-secret.js';
import { startLoginBenchServer } from './login-server.js';

const auth = new Auth({ secret: BENCH_AUTH_SECRET, loginThrottle: false });
await auth.register(LOGIN_USER.email, LOGIN_USER.password);
await startLoginBenchServer(auth);
