// Which error codes a spec route can answer, in the IR's terms: the rule itself (implied codes, order,
// grouping by status) is shared/openapi/error-codes.ts, which the runtime also reads for handwritten routes.
// OpenAPI responses, client result types and the docs all read this, so they never disagree.
import { catalog as builtInCatalog } from '../generated/modules/errors.js';
import type { ErrorIR, RouteIR } from '../shared/ir.js';
import {
  groupErrorsByStatus,
  impliedErrorCodes as sharedImpliedErrorCodes,
  orderErrorCodes,
  routeErrorFacts,
  type ErrorStatusGroup as SharedErrorStatusGroup,
} from '../shared/openapi/error-codes.js';

/** Where codes are looked up: the document's own codes first, then the built-in catalog. SpecIR fits. */
export interface ErrorLookup {
  errors: readonly ErrorIR[];
  catalog: readonly ErrorIR[];
}

/** Codes the pipeline may answer for this route whether or not the spec lists them. */
export function impliedErrorCodes(route: RouteIR): string[] {
  return sharedImpliedErrorCodes(routeErrorFacts(route));
}

/**
 * Declared + implied codes, without duplicates and without boot-only codes (they never reach a client),
 * sorted by status, then code. Pass the IR (`routeErrorCodes(route, ir)`) so the document's own codes sort
 * by their status; without it only built-in codes have a known status and the others sort last.
 */
export function routeErrorCodes(route: RouteIR, lookup?: ErrorLookup): string[] {
  const statusOf = (code: string) => (lookup ? findError(lookup, code) : builtInEntry(code))?.status;
  return orderErrorCodes([...route.errors, ...impliedErrorCodes(route)], statusOf);
}

/** One HTTP status a route can answer with an error, and the codes answered with it (sorted by code). */
export type ErrorStatusGroup = SharedErrorStatusGroup<ErrorIR>;

/**
 * The route's error codes grouped by every status each can carry (a code with `statuses` appears under
 * each of them), sorted by status. Throws when a code is in neither the document nor the catalog: the
 * loader refuses such specs, so this only guards hand-built IR.
 */
export function routeErrorsByStatus(route: RouteIR, lookup: ErrorLookup): ErrorStatusGroup[] {
  return groupErrorsByStatus(routeErrorCodes(route, lookup), (code) => findError(lookup, code), route.id);
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
