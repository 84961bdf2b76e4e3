// The built-in modules an application enables (IR `modules`, e.g. modules.auth) in what it describes to the
// outside: types.ts, openapi.json, client.ts and mcp-tools.json show their routes and resources as if the
// application declared them. Their handlers, validators and errors stay in svckit, so routes.ts,
// validators.js, errors.ts and config.ts are generated from the application's own declarations only.
import type { ErrorIR, SpecIR } from '../shared/ir.js';

/**
 * The application with its enabled modules merged in: resources and routes after its own, in the order the
 * modules are listed, and the modules' own error codes added to the catalog (codes are looked up there).
 * The loader guarantees no route id, method and path or resource name clashes. Idempotent.
 */
export function apiSurface(ir: SpecIR): SpecIR {
  const modules = ir.modules ?? [];
  if (modules.length === 0) return ir;
  const catalog: ErrorIR[] = [...ir.catalog];
  for (const error of modules.flatMap((module) => module.errors))
    if (!catalog.some((known) => known.code === error.code)) catalog.push(error);
  return {
    ...ir,
    resources: [...ir.resources, ...modules.flatMap((module) => module.resources)],
    routes: [...ir.routes, ...modules.flatMap((module) => module.routes)],
    catalog,
    modules: [],
  };
}
