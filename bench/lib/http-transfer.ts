// The file bench's client side: a generated multipart upload POSTed to a path, and a download read to the
// end and thrown away, each timed from the first byte sent to the last byte received.
import { request } from 'node:http';
import { multipartSource } from './multipart-source.js';

export interface Answer {
  seconds: number;
  status: number;
  text: string;
}

/** POSTs a generated one-file multipart body of `fileBytes` to `url`; resolves once the answer arrived whole. */
export function postUpload(
  url: string,
  fileBytes: number,
  seed: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let started = 0;
    const source = multipartSource(fileBytes, seed, () => (started = performance.now()));
    const outgoing = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...headers,
        'content-type': source.contentType,
        'content-length': source.contentLength,
      },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          seconds: (performance.now() - started) / 1000,
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    source.stream.pipe(outgoing);
  });
}

export interface Download {
  seconds: number;
  status: number;
  bytes: number;
}

/** GETs `url` and discards the body; resolves with its length once the last byte arrived. */
export function getDiscarding(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<Download> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = request(url, { agent: false, headers });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('error', reject);
      response.on('end', () =>
        resolve({ seconds: (performance.now() - started) / 1000, status: response.statusCode ?? 0, bytes }),
      );
    });
    outgoing.end();
  });
}
