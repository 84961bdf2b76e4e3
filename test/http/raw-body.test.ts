// Raw request bodies on every adapter: exact bytes for webhook signatures, limits,
// and a body that is read only after the guards passed.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpError, rawBody, route, type Plugin, type RawBodyInput } from 'svckit';
import { adapters, parseRawResponse, rawRequest, rawSocket, withServer } from './harness.js';

const echo = ({ body }: { body: RawBodyInput }) => ({
  base64: body.bytes.toString('base64'),
  length: body.bytes.length,
  contentType: body.contentType ?? null,
  contentLength: body.contentLength ?? null,
  text: body.text(),
});

const routes = [
  route<{ body: RawBodyInput }>({ method: 'POST', url: '/raw', body: rawBody(), handler: echo }),
  route<{ body: RawBodyInput }>({
    method: 'POST',
    url: '/small',
    body: rawBody({ maxBytes: 16 }),
    handler: echo,
  }),
  route<{ body: RawBodyInput }>({
    method: 'POST',
    url: '/webhook',
    body: rawBody(),
    handler: ({ body, request }) => {
      const expected = createHmac('sha256', 'whsec').update(body.bytes).digest('hex');
      if (request.headers['x-signature'] !== expected)
        throw new HttpError(401, 'BAD_SIGNATURE', 'Bad signature.');
      return { ok: true };
    },
  }),
  route<{ body: RawBodyInput }>({
    method: 'POST',
    url: '/guarded',
    body: rawBody(),
    meta: { locked: true },
    handler: echo,
  }),
];

/** Refuses `meta.locked` routes unless `x-key: open` is sent; records whether the body was touched first. */
const lockPlugin: Plugin = {
  name: 'lock',
  setup(app) {
    app.metadata.add('http:guards', {
      name: 'lock',
      check: ({ route: target, request }) => {
        if (target.meta.locked === true && request.headers['x-key'] !== 'open') {
          throw new HttpError(403, 'LOCKED', 'Locked.');
        }
      },
    });
    app.metadata.add('http:guarded-meta', { key: 'locked', plugin: 'lock' });
  },
};

const binary = Buffer.from([0x7b, 0x20, 0x22, 0xff, 0x00, 0xc3, 0x28, 0x0d, 0x0a, 0x7d]);

describe.each(adapters)('rawBody() on $name', (adapter) => {
  it('hands over the bytes exactly as received, whatever the content type says', async () => {
    await withServer(adapter, { routes, plugins: [lockPlugin] }, async (url) => {
      for (const contentType of [
        'application/json',
        'Application/Octet-Stream; x=1',
        'multipart/form-data; boundary=x',
      ]) {
        const response = await rawRequest(url, {
          method: 'POST',
          path: '/raw',
          headers: { 'content-type': contentType },
          body: binary,
        });
        expect(response.status).toBe(200);
        const json = JSON.parse(response.body) as ReturnType<typeof echo>;
        expect(Buffer.from(json.base64, 'base64')).toEqual(binary);
        expect(json.contentType).toBe(contentType.split(';')[0]?.toLowerCase());
        expect(json.contentLength).toBe(binary.length);
      }
    });
  });

  it('verifies a webhook signature over JSON whose whitespace a parser would have lost', async () => {
    const payload = '{ "event" : "paid",\n  "amount":  10.50 }';
    const signature = createHmac('sha256', 'whsec').update(payload).digest('hex');
    await withServer(adapter, { routes, plugins: [lockPlugin] }, async (url) => {
      const send = (sig: string) =>
        rawRequest(url, {
          method: 'POST',
          path: '/webhook',
          headers: { 'content-type': 'application/json', 'x-signature': sig },
          body: payload,
        });
      expect((await send(signature)).status).toBe(200);
      expect((await send(signature.replace(/^./, '0'))).status).toBe(401);
    });
  });

  it('reads chunked bodies, and gives an empty buffer when no body was declared', async () => {
    await withServer(adapter, { routes, plugins: [lockPlugin] }, async (url) => {
      const chunked = parseRawResponse(
        await rawSocket(
          url,
          'POST /raw HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
            '3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n',
        ),
      );
      expect(chunked.status).toBe(200);
      expect(JSON.parse(chunked.body)).toMatchObject({ text: 'abcde', contentLength: null });
      const empty = await rawRequest(url, { method: 'POST', path: '/raw' });
      expect(JSON.parse(empty.body)).toMatchObject({ length: 0, text: '', contentType: null });
    });
  });

  it('refuses a body over maxBytes with 413, declared or streamed, and closes the connection', async () => {
    await withServer(adapter, { routes, plugins: [lockPlugin] }, async (url) => {
      const declared = await rawRequest(url, { method: 'POST', path: '/small', body: 'x'.repeat(17) });
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body)).toEqual({
        error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
      });
      const streamed = parseRawResponse(
        await rawSocket(
          url,
          'POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
            'a\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n',
        ),
      );
      expect(streamed.status).toBe(413);
      expect(streamed.headers.connection).toBe('close');
      const exact = await rawRequest(url, { method: 'POST', path: '/small', body: 'x'.repeat(16) });
      expect(exact.status).toBe(200);
    });
  });

  it('defaults maxBytes to 1 MiB', async () => {
    await withServer(adapter, { routes, plugins: [lockPlugin] }, async (url) => {
      const atLimit = await rawRequest(url, {
        method: 'POST',
        path: '/raw',
        body: Buffer.alloc(1024 * 1024, 1),
      });
      expect(atLimit.status).toBe(200);
      const over = await rawRequest(url, {
        method: 'POST',
        path: '/raw',
        body: Buffer.alloc(1024 * 1024 + 1, 1),
      });
      expect(over.status).toBe(413);
    });
  });

  it('runs the guards before reading any body byte', async () => {
    await withServer(adapter, { routes, plugins: [lockPlugin] }, async (url) => {
      // The body never arrives: only the guard can answer.
      const text = await rawSocket(
        url,
        'POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly a little',
      );
      const response = parseRawResponse(text);
      expect(response.status).toBe(403);
      expect(response.headers.connection).toBe('close');
      const open = await rawRequest(url, {
        method: 'POST',
        path: '/guarded',
        headers: { 'x-key': 'open' },
        body: 'hello',
      });
      expect(JSON.parse(open.body)).toMatchObject({ text: 'hello' });
    });
  });
});
