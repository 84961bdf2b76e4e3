// The upload reader on real node:http requests: what a real client (fetch + FormData) sends parses, an early
// answer drains the rest, and a client that goes away mid-upload is reported as malformed.
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SvcError } from '../../../runtime/http/errors.js';
import { startUpload, upload, type UploadSession } from '../../../runtime/http/upload/index.js';
import { readStream } from './multipart.js';

type Handler = (session: UploadSession, request: IncomingMessage) => Promise<unknown>;

let server: Server | undefined;

afterEach(async () => {
  const running = server;
  server = undefined;
  if (running) await new Promise((resolve) => running.close(resolve));
});

/** Serves one upload route; the handler's result is sent as JSON, then finish() decides Connection: close. */
async function serve(handler: Handler, limits = upload({ maxBytes: 16 * 1024 * 1024, maxFiles: 5 }).limits) {
  const outcomes: Array<{ result?: unknown; error?: SvcError; complete: boolean }> = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      let session: UploadSession | undefined;
      let outcome: { result?: unknown; error?: SvcError; complete: boolean } = { complete: false };
      try {
        session = startUpload({ stream: req, headers: req.headers, limits });
        outcome = { result: await handler(session, req), complete: false };
      } catch (error) {
        outcome = { error: error as SvcError, complete: false };
      }
      outcome.complete = session === undefined ? false : (await session.finish()).complete;
      outcomes.push(outcome);
      if (!outcome.complete) res.setHeader('connection', 'close');
      res.writeHead(outcome.error ? (outcome.error.status ?? 500) : 200, {
        'content-type': 'application/json',
      });
      res.end(JSON.stringify(outcome.error ? { code: outcome.error.code } : outcome.result));
    })();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/upload`, port, outcomes };
}

describe('over node:http', () => {
  it('parses what fetch and FormData send', async () => {
    const { url, outcomes } = await serve(async (session) => {
      const files = [];
      for await (const file of session.body.files) {
        const data = await readStream(file.stream);
        files.push({
          field: file.field,
          filename: file.filename,
          type: file.declaredType,
          sha: createHash('sha256').update(data).digest('hex'),
        });
      }
      return { files, fields: { ...session.body.fields } };
    });
    const big = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const form = new FormData();
    form.append('title', 'caf\u00e9 \u{1F600}');
    form.append('photo', new Blob([big], { type: 'image/png' }), 'vacation "best" \u00e9t\u00e9.png');
    form.append('notes', new Blob(['plain']), '../../secret.txt');
    form.append('after', 'last');
    const response = await fetch(url, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      files: [
        {
          field: 'photo',
          filename: 'vacation %22best%22 \u00e9t\u00e9.png',
          type: 'image/png',
          sha: createHash('sha256').update(big).digest('hex'),
        },
        {
          field: 'notes',
          filename: 'secret.txt',
          type: 'application/octet-stream',
          sha: createHash('sha256').update('plain').digest('hex'),
        },
      ],
      fields: { title: 'caf\u00e9 \u{1F600}', after: 'last' },
    });
    expect(outcomes[0]?.complete).toBe(true);
    expect(response.headers.get('connection')).not.toBe('close');
  });

  it('answers a handler that read nothing with Connection: close', async () => {
    const { url, outcomes } = await serve(async () => ({ ignored: true }));
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(2 * 1024 * 1024, 1)]), 'big.bin');
    const response = await fetch(url, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ ignored: true });
    expect(outcomes[0]?.complete).toBe(false);
  });

  it('keeps the connection when the handler read the body to its end', async () => {
    const { url, outcomes } = await serve(async (session) => {
      for await (const file of session.body.files) file.stream.resume();
      return { read: true };
    });
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(256 * 1024, 1)]), 'f.bin');
    const response = await fetch(url, { method: 'POST', body: form });
    expect(await response.json()).toEqual({ read: true });
    expect(response.headers.get('connection')).not.toBe('close');
    expect(outcomes[0]?.complete).toBe(true);
  });

  it('refuses a declared length above maxBytes before reading', async () => {
    const { url } = await serve(async () => 'unreachable', upload({ maxBytes: 1000, maxFiles: 1 }).limits);
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(5000)]), 'x.bin');
    const response = await fetch(url, { method: 'POST', body: form });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('reports a client that goes away mid-upload as MALFORMED_MULTIPART', async () => {
    let failure: ((error: unknown) => void) | undefined;
    const failed = new Promise<unknown>((resolve) => (failure = resolve));
    let started: (() => void) | undefined;
    const fileStarted = new Promise<void>((resolve) => (started = resolve));
    const { port } = await serve(async (session) => {
      try {
        for await (const file of session.body.files) {
          started?.();
          await readStream(file.stream);
        }
      } catch (error) {
        failure?.(error);
        throw error;
      }
    });
    const client = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': 'multipart/form-data; boundary=b', 'transfer-encoding': 'chunked' },
    });
    client.on('error', () => undefined);
    client.write('--b\r\nContent-Disposition: form-data; name="f"; filename="f.bin"\r\n\r\n');
    client.write(Buffer.alloc(64 * 1024, 2));
    await fileStarted;
    client.destroy();
    expect(await failed).toMatchObject({
      status: 400,
      code: 'MALFORMED_MULTIPART',
      details: { reason: 'aborted' },
    });
  });
});
