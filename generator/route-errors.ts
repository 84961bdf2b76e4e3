// The single rule for which error codes a route can answer: the codes it declares plus the codes the
// pipeline itself may answer for it. OpenAPI responses, client result types and the docs all read this,
// so they never disagree.
import { routeIdempotency } from './idempotency.js';
import { catalog as builtInCatalog } from '../generated/modules/errors.js';
import type { ErrorIR, RouteIR } from '../spec/ir.js';

/** Where codes are looked up: the document's own codes first, then the built-in catalog. SpecIR fits. */
export interface ErrorLookup {
  errors: readonly ErrorIR[];
  catalog: readonly ErrorIR[];
}

/** What the runtime refuses before the handler sees the body, by body kind (seed 001 "Errors"). */
const BODY_CODES: Record<NonNullable<RouteIR['body']>['kind'] | 'none', readonly string[]> = {
  none: [],
  // Malformed JSON, a non-JSON content type and an oversized body are refused before validation.
  json: ['BAD_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'],
  // Multipart that breaks the grammar or a limit; a body that is not multipart or a file type not allowed.
  upload: [
    'MALFORMED_MULTIPART',
    'TOO_MANY_FILES',
    'TOO_MANY_FIELDS',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  // Past maxBytes; or bytes declared that no adapter could supply (an application-wide parser ate them).
  raw: ['PAYLOAD_TOO_LARGE', 'RAW_BODY_UNAVAILABLE'],
};

/** Codes the pipeline may answer for this route whether or not the spec lists them. */
export function impliedErrorCodes(route: RouteIR): string[] {
  const codes: string[] = [];
  if (route.params || route.query || route.body?.kind === 'json') codes.push('HTTP_VALIDATION');
  codes.push(...BODY_CODES[route.body?.kind ?? 'none']);
  if (route.meta.auth === true) codes.push('AUTH_REQUIRED');
  if (route.meta.rateLimit !== undefined && route.meta.rateLimit !== false && route.meta.rateLimit !== null) {
    codes.push('RATE_LIMITED');
  }
  const idempotency = routeIdempotency(route);
  if (idempotency !== undefined) {
    codes.push('IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_REUSED');
    if (idempotency === 'required') codes.push('IDEMPOTENCY_KEY_REQUIRED');
  }
  codes.push('INTERNAL_ERROR');
  return codes;
}

/**
 * Declared + implied codes, without duplicates and without boot-only codes (they never reach a client),
 * sorted by status, then code. Pass the IR (`routeErrorCodes(route, ir)`) so the document's own codes sort
 * by their status; without it only built-in codes have a known status and the others sort last.
 */
export function routeErrorCodes(route: RouteIR, lookup?: ErrorLookup): string[] {
  const statusOf = (code: string): number => {
    const entry = lookup ? findError(lookup, code) : builtInEntry(code);
    if (!entry || entry.status === 'boot') return entry ? -1 : Number.MAX_SAFE_INTEGER;
    return entry.status;
  };
  const codes = [...new Set([...route.errors, ...impliedErrorCodes(route)])].filter(
    (code) => statusOf(code) !== -1,
  );
  return codes.sort((a, b) => statusOf(a) - statusOf(b) || compareCodes(a, b));
}

/** One HTTP status a route can answer with an error, and the codes answered with it (sorted by code). */
export interface ErrorStatusGroup {
  status: number;
  errors: ErrorIR[];
}

/**
 * The route's error codes grouped by every status each can carry (a code with `statuses` appears under
 * each of them), sorted by status. Throws when a code is in neither the document nor the catalog: the
 * loader refuses such specs, so this only guards hand-built IR.
 */
export function routeErrorsByStatus(route: RouteIR, lookup: ErrorLookup): ErrorStatusGroup[] {
  const groups = new Map<number, ErrorIR[]>();
  for (const code of routeErrorCodes(route, lookup)) {
    const entry = findError(lookup, code);
    if (!entry) throw new Error(`route ${route.id} answers error code ${code}, which no catalog declares`);
    if (entry.status === 'boot') continue;
    for (const status of new Set([entry.status, ...(entry.statuses ?? [])])) {
      const group = groups.get(status) ?? [];
      group.push(entry);
      groups.set(status, group);
    }
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, errors]) => ({ status, errors: errors.sort((a, b) => compareCodes(a.code, b.code)) }));
}

export function findError(lookup: ErrorLookup, code: string): ErrorIR | undefined {
  return (
    lookup.errors.find((error) => error.code === code) ?? lookup.catalog.find((error) => error.code === code)
  );
}

function builtInEntry(code: string): { status: number | 'boot' } | undefined {
  return Object.hasOwn(builtInCatalog, code)
    ? builtInCatalog[code as keyof typeof builtInCatalog]
    : undefined;
}

// Plain code-unit order, so the result never depends on the machine's locale.
function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
