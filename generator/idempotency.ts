// What the generated artefacts say about idempotency keys: which routes declare `meta.idempotency`, and the
// header that carries the key (`modules.idempotency.header`, default idempotency-key). The OpenAPI document
// and the typed client both read this, so they name the same header.
import { DEFAULT_IDEMPOTENCY_HEADER } from '../shared/idempotency-headers.js';
import type { RouteIR, SpecIR } from '../shared/ir.js';
import { declaredIdempotency } from '../shared/openapi/error-codes.js';

export { MAX_IDEMPOTENCY_KEY_LENGTH } from '../shared/idempotency-headers.js';

/** 'required' or 'optional' when the route declares it; undefined otherwise. */
export function routeIdempotency(route: RouteIR): 'required' | 'optional' | undefined {
  return declaredIdempotency(route.meta);
}

/** The key's header as the module model has it (IR `moduleSettings.idempotency`), else the default. */
export function idempotencyHeader(ir: SpecIR): string {
  return ir.moduleSettings.idempotency?.header ?? DEFAULT_IDEMPOTENCY_HEADER;
}
