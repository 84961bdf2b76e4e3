// The SQL passkey stores on PGlite (embedded PostgreSQL): the whole PasskeyStore and ChallengeStore contracts,
// races included. One in-memory PGlite serves the whole file (it takes ~2 s to start); each test gets empty
// tables.
import { afterAll, beforeAll } from 'vitest';
import {
  migrate,
  openSqlClient,
  SqlChallengeStore,
  SqlPasskeyStore,
  type SqlClient,
} from '../../runtime/stores/sql/index.js';
import {
  challengeStoreContract,
  emptyPasskeyTables,
  passkeyStoreContract,
} from './contracts/passkey-store.js';
import { sameAssertionRace } from './contracts/passkey-sign-in-race.js';

let client: SqlClient;

beforeAll(async () => {
  client = await openSqlClient('pglite:memory');
  await migrate(client);
});

afterAll(async () => {
  await client?.close();
});

passkeyStoreContract('SqlPasskeyStore (PGlite)', async () => {
  await emptyPasskeyTables(client);
  return new SqlPasskeyStore(client);
});
challengeStoreContract('SqlChallengeStore (PGlite)', async () => {
  await emptyPasskeyTables(client);
  return new SqlChallengeStore(client);
});

sameAssertionRace('passkey sign-in on PGlite', async () => {
  await emptyPasskeyTables(client);
  const backend = { credentials: new SqlPasskeyStore(client), challenges: new SqlChallengeStore(client) };
  return [backend, backend];
});
