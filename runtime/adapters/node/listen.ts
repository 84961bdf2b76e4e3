// Listening on a node:http server and naming where: what the Express and Hono adapters share (Fastify listens
// through its own API and only needs the URL).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServerAddress {
  url: string;
  host: string;
  port: number;
}

/** `http://127.0.0.1:3000`, `http://[::1]:3000`; https when the server speaks TLS. */
export function urlOf(address: AddressInfo, secure = false): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${secure ? 'https' : 'http'}://${host}:${address.port}`;
}

/** Starts listening; rejects with the listen error (a port in use) instead of emitting it. */
export async function listenOn(
  server: Server,
  port: number | undefined,
  host: string | undefined,
): Promise<ServerAddress> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { url: urlOf(address), host: address.address, port: address.port };
}
