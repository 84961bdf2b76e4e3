// plain-busboy.ts doing the work svc's file service must do for every byte: a SHA-256 checksum of the file
// and fdatasync before answering (a stored file survives a crash). Not a target baseline: it shows how much of
// the gap between svc and plain busboy is that work rather than svc's own code.
import busboy from 'busboy';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { announce } from './shared.js';
import { UPLOAD_MAX_BYTES, uploadPath } from './upload-target.js';

function answer(response: ServerResponse, status: number, body: object): void {
  if (response.headersSent) return;
  const json = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}

/** Streams the part to a new file through a SHA-256 hash, then flushes it to the device; the byte count. */
async function store(file: Readable): Promise<number> {
  const path = uploadPath();
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const target = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  await pipeline(file, hashing, target);
  hash.digest('hex');
  const handle = await open(path, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return target.bytesWritten;
}

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
