// How the API-key bench server tells the runner its key: a key is made at random when it is issued, in the
// server's memory store, so the server writes it to a file named after the port it listens on, before it
// announces its URL; the runner reads it back for that server's `x-api-key`.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Plugin } from 'svckit';

/** The scope the bench route requires and the bench key holds. */
export const BENCH_KEY_SCOPE = 'notes:read';

function apiKeyFile(serverUrl: string): string {
  return path.join(tmpdir(), `svc-bench-apikey-${new URL(serverUrl).port}`);
}

/** Server side: records the key for the runner, and removes the record when the server exits. */
export function publishBenchApiKey(serverUrl: string, key: string): void {
  const file = apiKeyFile(serverUrl);
  writeFileSync(file, key);
  process.on('exit', () => rmSync(file, { force: true }));
}

/** Runner side: the key the API-key server at `serverUrl` issued. */
export function readBenchApiKey(serverUrl: string): string {
  return readFileSync(apiKeyFile(serverUrl), 'utf8');
}

/**
 * Publishes `key` on `app:listening`, which comes before the URL is announced: the runner finds it once it knows
 * the URL.
 */
export function benchApiKeyPublisher(key: string): Plugin {
  return {
    name: 'bench:api-key',
    setup(app) {
      app.hooks.on('app:listening', ({ url }) => publishBenchApiKey(url, key));
    },
  };
}
