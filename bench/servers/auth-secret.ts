// The signing secret the auth bench server and the bench runner share, so the runner can mint the bearer
// token both servers receive. Tokens live a day: a bench run never outlasts them.
export const BENCH_AUTH_SECRET = 'bench-secret-bench-secret-bench-secret';
export const BENCH_ACCESS_TTL = '24h';
/** The one account of the login bench. */
export const LOGIN_USER = { email: 'bench@example.com', password: 'bench password 1' };
