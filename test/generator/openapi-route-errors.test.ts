// generator/route-errors.ts: the one rule for which codes a route can answer (OpenAPI, client and docs read it).
import { describe, expect, it } from 'vitest';
import { impliedErrorCodes, routeErrorCodes, routeErrorsByStatus } from '../../generator/route-errors.js';
import type { RouteIR } from '../../shared/ir.js';
import { rawBody, route, upload, type Route } from 'svckit';
import {
  impliedErrorCodes as sharedImpliedErrorCodes,
  routeErrorFacts,
} from '../../shared/openapi/error-codes.js';
import { notesIr } from './client-fixture/spec.js';

const ir = notesIr();
const bare: RouteIR = {
  id: 'bare',
  method: 'GET',
  path: '/bare',
  pathParams: [],
  responses: { '200': null },
  errors: [],
  meta: {},
  loc: { file: 'x', line: 1, column: 1 },
};
const object = { type: 'object', properties: {} };

describe('routeErrorCodes', () => {
  it('always includes INTERNAL_ERROR, and nothing else for a route without inputs or meta', () => {
    expect(routeErrorCodes(bare, ir)).toEqual(['INTERNAL_ERROR']);
  });

  it('implies HTTP_VALIDATION for params, query or body', () => {
    expect(impliedErrorCodes({ ...bare, params: object })).toContain('HTTP_VALIDATION');
    expect(impliedErrorCodes({ ...bare, query: object })).toContain('HTTP_VALIDATION');
    expect(impliedErrorCodes({ ...bare, query: object })).not.toContain('BAD_REQUEST');
  });

  it('implies the body refusals for a body', () => {
    const withBody: RouteIR = {
      ...bare,
      method: 'POST',
      body: { kind: 'json', schema: object, required: false },
    };
    expect(routeErrorCodes(withBody, ir)).toEqual([
      'BAD_REQUEST',
      'HTTP_VALIDATION',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'INTERNAL_ERROR',
    ]);
  });

  it('implies AUTH_REQUIRED only for meta.auth true and RATE_LIMITED only when a limit is set', () => {
    expect(impliedErrorCodes({ ...bare, meta: { auth: true } })).toContain('AUTH_REQUIRED');
    expect(impliedErrorCodes({ ...bare, meta: { auth: false } })).not.toContain('AUTH_REQUIRED');
    expect(impliedErrorCodes({ ...bare, meta: { rateLimit: { limit: 1, windowMs: 1000 } } })).toContain(
      'RATE_LIMITED',
    );
    expect(impliedErrorCodes({ ...bare, meta: { rateLimit: false } })).not.toContain('RATE_LIMITED');
  });

  it('merges declared codes without duplicates, sorted by status then code', () => {
    const route: RouteIR = {
      ...bare,
      params: object,
      errors: ['NOTE_STORE_FULL', 'NOTE_NOT_FOUND', 'NOTE_CURSOR_INVALID', 'HTTP_VALIDATION'],
      meta: { auth: true },
    };
    expect(routeErrorCodes(route, ir)).toEqual([
      'HTTP_VALIDATION',
      'NOTE_CURSOR_INVALID',
      'AUTH_REQUIRED',
      'AUTH_TOKEN_EXPIRED',
      'AUTH_TOKEN_INVALID',
      'NOTE_NOT_FOUND',
      'INTERNAL_ERROR',
      'NOTE_STORE_FULL',
    ]);
  });

  it('leaves out boot-only codes: they never reach a client', () => {
    expect(routeErrorCodes({ ...bare, errors: ['CONFIG_INVALID'] }, ir)).toEqual(['INTERNAL_ERROR']);
  });

  it('sorts built-in codes by status without the IR, and unknown codes last', () => {
    expect(routeErrorCodes({ ...bare, errors: ['NOTE_NOT_FOUND', 'RATE_LIMITED'], params: object })).toEqual([
      'HTTP_VALIDATION',
      'RATE_LIMITED',
      'INTERNAL_ERROR',
      'NOTE_NOT_FOUND',
    ]);
  });
});

describe('routeErrorsByStatus', () => {
  it('groups codes by every status they can carry, sorted by status, then code', () => {
    const route: RouteIR = { ...bare, query: object, errors: ['AUTH_TOKEN_INVALID', 'NOTE_CURSOR_INVALID'] };
    const groups = routeErrorsByStatus(route, ir).map((g) => [g.status, g.errors.map((e) => e.code)]);
    expect(groups).toEqual([
      [400, ['AUTH_TOKEN_INVALID', 'HTTP_VALIDATION', 'NOTE_CURSOR_INVALID']],
      [401, ['AUTH_TOKEN_INVALID']],
      [500, ['INTERNAL_ERROR']],
    ]);
  });

  it('prefers the document’s own entry for a code', () => {
    const custom = notesIr({
      errors: [{ code: 'NOTE_NOT_FOUND', status: 410, message: 'Gone.', module: 'app' }],
    });
    const groups = routeErrorsByStatus({ ...bare, errors: ['NOTE_NOT_FOUND'] }, custom);
    expect(groups[0]).toMatchObject({ status: 410, errors: [{ message: 'Gone.' }] });
  });

  it('throws for a code that no catalog declares', () => {
    expect(() => routeErrorsByStatus({ ...bare, errors: ['MISSING_CODE'] }, ir)).toThrow(
      /bare.*MISSING_CODE/,
    );
  });
});

// The runtime describes handwritten routes' errors by the same rule (shared/openapi/error-codes.ts): a route()
// written to match a spec route must be read as the same facts, so it documents the same implied codes.
describe('the shared error-code rule reads a spec route and a route() alike', () => {
  const handler = () => ({});
  const variants: [RouteIR, Route][] = [
    [bare, route({ method: 'GET', url: '/bare', handler })],
    [
      { ...bare, params: object, query: object },
      route({ method: 'GET', url: '/bare', params: object, query: object, handler }),
    ],
    [
      { ...bare, method: 'POST', body: { kind: 'upload', limits: { maxBytes: 1024, maxFiles: 1 } } },
      route({ method: 'POST', url: '/bare', body: upload({ maxBytes: 1024, maxFiles: 1 }), handler }),
    ],
    [
      { ...bare, method: 'POST', body: { kind: 'raw' }, meta: { idempotency: 'optional' } },
      route({ method: 'POST', url: '/bare', body: rawBody(), meta: { idempotency: 'optional' }, handler }),
    ],
    [
      { ...bare, meta: { auth: true, rateLimit: { limit: 1, windowMs: 1000 }, idempotency: 'required' } },
      route({
        method: 'GET',
        url: '/bare',
        meta: { auth: true, rateLimit: { limit: 1, windowMs: 1000 }, idempotency: 'required' },
        handler,
      }),
    ],
    [
      { ...bare, meta: { rateLimit: false, idempotency: false } },
      route({ method: 'GET', url: '/bare', meta: { rateLimit: false, idempotency: false }, handler }),
    ],
  ];

  it.each(variants.map(([spec, handwritten], index) => [index, spec, handwritten] as const))(
    'variant %i: the same implied codes',
    (_index, spec, handwritten) => {
      expect(sharedImpliedErrorCodes(routeErrorFacts(handwritten))).toEqual(impliedErrorCodes(spec));
    },
  );
});
