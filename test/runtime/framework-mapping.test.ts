// Framework-raised errors map to fixed codes; request targets; the 405 route table.
import { describe, expect, it } from 'vitest';
import { fixedCodeForStatus, frameworkClientError, neutralMessage } from 'svckit';
import { clientErrorResponse, clientErrorStatus } from '../../runtime/http/client-error.js';
import { requestLineOf } from '../../runtime/http/socket-request.js';
import { headFromGet, RouteTable } from '../../runtime/http/route-table.js';
import { originForm, pathOf } from '../../runtime/http/url.js';

describe('fixedCodeForStatus', () => {
  it.each([
    [400, 'BAD_REQUEST'],
    [404, 'NOT_FOUND'],
    [405, 'METHOD_NOT_ALLOWED'],
    [408, 'REQUEST_TIMEOUT'],
    [413, 'PAYLOAD_TOO_LARGE'],
    [414, 'URI_TOO_LONG'],
    [415, 'UNSUPPORTED_MEDIA_TYPE'],
    [431, 'HEADERS_TOO_LARGE'],
    [416, 'BAD_REQUEST'],
    [422, 'BAD_REQUEST'],
    [500, 'INTERNAL_ERROR'],
  ])('%i → %s', (status, code) => expect(fixedCodeForStatus(status)).toBe(code));

  it('builds catalog errors with the catalog message, never the framework one', () => {
    const error = frameworkClientError(413);
    expect([error.status, error.code, error.message]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      'Request body is too large.',
    ]);
  });
});

describe('neutralMessage', () => {
  it.each([
    [500, 'Internal server error.'],
    [404, 'Not found.'],
    [503, 'Service unavailable.'],
    [599, 'Internal server error.'],
    [499, 'Request failed.'],
  ])('%i → %s', (status, message) => expect(neutralMessage(status)).toBe(message));
});

describe('client errors on the raw socket', () => {
  it('maps node parser codes to statuses', () => {
    expect(clientErrorStatus('HPE_HEADER_OVERFLOW')).toBe(431);
    expect(clientErrorStatus('ERR_HTTP_REQUEST_TIMEOUT')).toBe(408);
    expect(clientErrorStatus('HPE_INVALID_METHOD')).toBe(400);
  });

  it('writes a complete HTTP response with the envelope and a request id', () => {
    const text = clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT');
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toContain('connection: close');
    expect(head).toMatch(/x-request-id: [0-9a-f-]{36}/);
    expect(head).toContain(`content-length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: 'Request timed out.' } });
  });
});

describe('the request line of a client error', () => {
  it('gives the request hooks the method and origin-form target node had read, else GET /', () => {
    const packet = (text: string) => Buffer.from(text, 'latin1');
    expect(requestLineOf(packet('POST /notes?q=1 HTTP/1.1\r\nHost: a\r\nX: ' + 'x'.repeat(9000)))).toEqual({
      method: 'POST',
      url: '/notes?q=1',
    });
    expect(requestLineOf(packet('GET http://host/a/b HTTP/1.0\r\n'))).toEqual({ method: 'GET', url: '/a/b' });
    // A target that is not a path stands as `/`; the method still reads.
    expect(requestLineOf(packet('OPTIONS * HTTP/1.1\r\n'))).toEqual({ method: 'OPTIONS', url: '/' });
    for (const unreadable of [
      packet('\x16\x03\x01 garbage'),
      packet(`GET /${'a'.repeat(3000)} HTTP/1.1\r\n`),
      undefined,
    ]) {
      expect(requestLineOf(unreadable)).toEqual({ method: 'GET', url: '/' });
    }
  });
});

describe('request targets', () => {
  it.each([
    ['/a?b=1', '/a?b=1'],
    ['http://host/a?b=1', '/a?b=1'],
    ['https://host:8443/a/b', '/a/b'],
    ['http://host', '/'],
    ['http://host?x=1', '/?x=1'],
    ['*', '*'],
  ])('originForm(%j) = %j', (target, expected) => expect(originForm(target)).toBe(expected));

  it('pathOf drops query and fragment', () => {
    expect(pathOf('/a/b?c=1#d')).toBe('/a/b');
    expect(pathOf('/a#d?x')).toBe('/a');
    expect(pathOf('/a')).toBe('/a');
  });
});

describe('RouteTable', () => {
  const table = new RouteTable([
    { method: 'GET', url: '/notes' },
    { method: 'POST', url: '/notes' },
    { method: 'DELETE', url: '/notes/:id' },
    { method: 'PUT', url: '/files/*' },
    { method: 'GET', url: '/a.b/(x)' },
  ]);

  it('lists the methods of a path in a stable order, HEAD with GET', () => {
    expect(table.allowedMethods('/notes')).toEqual(['GET', 'POST', 'HEAD']);
    expect(table.allowedMethods('/notes/42')).toEqual(['DELETE']);
    expect(table.allowedMethods('/files/x/y.txt')).toEqual(['PUT']);
  });

  it('matches case-sensitively, without trailing-slash alias or empty parameters', () => {
    expect(table.allowedMethods('/Notes')).toEqual([]);
    expect(table.allowedMethods('/notes/')).toEqual([]);
    expect(table.allowedMethods('/notes/1/2')).toEqual([]);
  });

  it('treats regex characters in paths literally', () => {
    expect(table.allowedMethods('/a.b/(x)')).toEqual(['GET', 'HEAD']);
    expect(table.allowedMethods('/aXb/(x)')).toEqual([]);
  });

  it('decides 404, or 405 with Allow, for a request no route matched', () => {
    const allow: string[] = [];
    const reply = { header: (_name: string, value: string) => allow.push(value) };
    expect(table.unroutedError('/nowhere', reply)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(allow).toEqual([]);
    expect(table.unroutedError('/notes', reply)).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    expect(allow).toEqual(['GET, POST, HEAD']);
  });

  it('lets a GET route answer HEAD unless a HEAD route of the same shape exists', () => {
    const get = { method: 'GET', url: '/items/:id' } as const;
    expect(headFromGet([get])(get)).toBe(true);
    expect(headFromGet([get, { method: 'HEAD', url: '/items/:itemId' }])(get)).toBe(false);
    expect(headFromGet([get])({ method: 'POST', url: '/items/:id' })).toBe(false);
  });
});
