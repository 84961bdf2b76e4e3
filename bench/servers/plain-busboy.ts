// node:http + busboy, streaming the uploaded file to disk: the baseline svc's upload() is measured against.
import busboy from 'busboy';
import { createWriteStream } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  parser.on('file', (_field, file) => {
    const target = createWriteStream(uploadPath());
    written.push(pipeline(file, target).then(() => target.bytesWritten));
  });
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
