// Which error codes a spec route can answer, in the IR's terms: the rule itself (implied codes, order,
// grouping by status) is shared/openapi/error-codes.ts, which the runtime also reads for handwritten routes.
// OpenAPI responses, client result types and the docs all read this, so they never disagree.
import { catalog as builtInCatalog } from '../generated/modules/errors.js';
import type { ErrorIR, ModuleSettingsIR, RouteIR } from '../shared/ir.js';
import {
  groupErrorsByStatus,
  impliedStatus,
  impliedErrorCodes as sharedImpliedErrorCodes,
  orderErrorCodes,
  routeErrorFacts,
  type ErrorStatusGroup as SharedErrorStatusGroup,
} from '../shared/openapi/error-codes.js';

/**
 * Where codes are looked up (the document's own codes first, then the built-in catalog) and the module model
 * that decides which codes the enabled modules add to every route. SpecIR fits.
 */
export interface ErrorLookup {
  errors: readonly ErrorIR[];
  catalog: readonly ErrorIR[];
  moduleSettings?: ModuleSettingsIR;
}

/** Codes the pipeline may answer for this route, under these modules, whether or not the spec lists them. */
export function impliedErrorCodes(route: RouteIR, modules: ModuleSettingsIR = {}): string[] {
  return sharedImpliedErrorCodes(routeErrorFacts(route, modules));
}

/**
 * Declared + implied codes, without duplicates and without boot-only codes (they never reach a client),
 * sorted by status, then code. Pass the IR (`routeErrorCodes(route, ir)`) so the document's own codes sort
 * by their status; without it only built-in codes have a known status and the others sort last.
 */
export function routeErrorCodes(route: RouteIR, lookup?: ErrorLookup): string[] {
  const statusOf = (code: string) => (lookup ? findError(lookup, code) : builtInEntry(code))?.status;
  const implied = impliedErrorCodes(route, lookup?.moduleSettings);
  return orderErrorCodes([...route.errors, ...implied], statusOf);
}

/** One HTTP status a route can answer with an error, and the codes answered with it (sorted by code). */
export type ErrorStatusGroup = SharedErrorStatusGroup<ErrorIR>;

/**
 * The route's error codes grouped by every status each can carry (a code with `statuses` appears under
 * each of them), sorted by status. Throws when a code is in neither the document nor the catalog: the
 * loader refuses such specs, so this only guards hand-built IR.
 */
export function routeErrorsByStatus(route: RouteIR, lookup: ErrorLookup): ErrorStatusGroup[] {
  return groupErrorsByStatus(
    routeErrorCodes(route, lookup),
    (code) => findError(lookup, code),
    route.id,
    impliedStatus(route.errors),
  );
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
