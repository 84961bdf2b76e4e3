// Anonymous tool sessions across processes (docs/mcp.md "Sessions"): the fingerprint an anonymous caller's
// session is bound to is keyed from `sessions.secret`, so a session opened on this process is usable on
// another one sharing the secret and the Redis session store, and foreign (404) on one with another secret or
// none. The other process is a real child process: apps in one process would share any per-process key.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, mcpPlugin, mcpRoutes, route, type App } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { closeRedis, openRedis, redisStores, type RedisClient } from '../../runtime/stores/redis/index.js';
import { initialize, inSession } from '../http/mcp-helpers.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PEER = fileURLToPath(new URL('./fixtures/session-peer.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'the-service-secret-of-at-least-32-chars';
const BEARER = { authorization: 'Bearer opaque-token' };

let client: RedisClient;
let app: App;
let url: string;
const prefix = `svc-test:${randomUUID()}:`;
const peers: ChildProcess[] = [];

/** Starts the peer process with `secret` (none when undefined) and answers its URL. */
function startPeer(secret: string | undefined): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, PEER_REDIS_URL: REDIS_URL, PEER_PREFIX: prefix };
  delete env.PEER_SECRET;
  if (secret !== undefined) env.PEER_SECRET = secret;
  const child = spawn(process.execPath, ['--import', 'tsx', PEER], {
    cwd: REPO_ROOT,
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  peers.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline !== -1) resolve(out.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`the peer exited (${code})`)));
  });
}

beforeAll(async () => {
  client = await openRedis(REDIS_URL);
  app = createApp({ name: 'here' });
  app.register(mcpPlugin({ reportError: false }));
  app.register(
    fastifyPlugin({
      onError: false,
      routes: [
        route({ method: 'GET', url: '/ping', meta: { mcp: true }, handler: () => ({ ok: true }) }),
        ...mcpRoutes({ sessions: { store: redisStores(client, { prefix }).mcpSessions, secret: SECRET } }),
      ],
    }),
  );
  ({ url } = await app.listen({ port: 0, host: '127.0.0.1' }));
}, 60_000);

afterAll(async () => {
  for (const peer of peers) peer.stdin?.end();
  await Promise.all(
    peers.map((peer) =>
      peer.exitCode === null ? new Promise((resolve) => peer.once('exit', resolve)) : undefined,
    ),
  );
  await app?.close();
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  await closeRedis(client);
}, 60_000);

describe('anonymous sessions across processes on one Redis store', () => {
  it('a session opened here is usable in a process sharing the secret, and still bound to its caller', async () => {
    const peer = await startPeer(SECRET);
    const id = await initialize(url, { headers: BEARER });
    expect((await inSession(peer, id, BEARER).list()).status).toBe(200);
    expect((await inSession(peer, id, { authorization: 'Bearer another' }).list()).status).toBe(404);
    // Without any Authorization header too.
    const bare = await initialize(url);
    expect((await inSession(peer, bare).list()).status).toBe(200);
  }, 60_000);

  it('is foreign (404) in a process with another secret or none, and still usable here', async () => {
    for (const secret of ['another-service-secret-of-32-chars!!', undefined]) {
      const peer = await startPeer(secret);
      const id = await initialize(url, { headers: BEARER });
      expect((await inSession(peer, id, BEARER).list()).status, String(secret)).toBe(404);
      expect((await inSession(url, id, BEARER).list()).status).toBe(200);
    }
  }, 90_000);
});
