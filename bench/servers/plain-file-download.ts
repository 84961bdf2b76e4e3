// node:http piping fs.createReadStream of one file: the baseline svc's GET /files/:id/content is measured
// against. The runner passes the files to serve: GET /warm-up and GET /file answer BENCH_DOWNLOAD_WARM_UP
// and BENCH_DOWNLOAD_FILE.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { announce } from './shared.js';

const SERVED: Record<string, string | undefined> = {
  '/warm-up': process.env.BENCH_DOWNLOAD_WARM_UP,
  '/file': process.env.BENCH_DOWNLOAD_FILE,
};

const server = createServer((request, response) => {
  const path = request.method === 'GET' && request.url !== undefined ? SERVED[request.url] : undefined;
  if (path === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': statSync(path).size,
  });
  pipeline(createReadStream(path), response).catch(() => response.destroy());
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}`);
});
