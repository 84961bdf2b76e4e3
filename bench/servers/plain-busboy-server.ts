// The node:http + busboy server both plain upload baselines run: POST /upload hands each file part to
// `store` and answers 201 `{ bytes }` once every part is stored. Only how a part is stored differs between
// them, so the comparison between the two measures that and nothing else.
import busboy from 'busboy';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { announce } from './shared.js';
import { UPLOAD_MAX_BYTES } from './upload-target.js';

/** Stores one file part; resolves with the number of bytes written. */
export type PartStore = (file: Readable) => Promise<number>;

function answer(response: ServerResponse, status: number, body: object): void {
  if (response.headersSent) return;
  const json = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}

/** Listens on a free loopback port and announces its URL to the bench runner. */
export function serveBusboyUploads(store: PartStore): void {
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/upload') {
      answer(response, 404, { error: 'not found' });
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { files: 1, fileSize: UPLOAD_MAX_BYTES } });
    } catch {
      answer(response, 415, { error: 'multipart/form-data expected' });
      return;
    }
    const written: Promise<number>[] = [];
    parser.on('file', (_field, file) => written.push(store(file)));
    parser.on('close', () => {
      Promise.all(written).then(
        (counts) => answer(response, 201, { bytes: counts.reduce((sum, count) => sum + count, 0) }),
        () => answer(response, 500, { error: 'write failed' }),
      );
    });
    parser.on('error', () => {
      request.unpipe(parser);
      answer(response, 400, { error: 'malformed multipart body' });
    });
    request.pipe(parser);
  });

  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    announce(`http://127.0.0.1:${port}`);
  });
}
