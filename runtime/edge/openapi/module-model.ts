// The module model of the served document: which registered plugins act on every route (the auth enricher,
// the global rate limit, idempotency keys, the tenancy guards), merged from what each published in
// `http:route-error-modules`.
// The generator reads the same facts from the spec's `modules:`; both feed shared/openapi/error-codes.ts.
import type { RouteErrorModules } from '../../../shared/openapi/error-codes.js';

/** One model from every plugin's part: a module is on when any plugin says so; methods are joined. */
export function routeErrorModules(published: readonly RouteErrorModules[]): RouteErrorModules {
  const model: RouteErrorModules = {};
  const methods = new Set<string>();
  let keyed = false;
  for (const part of published) {
    if (part.auth !== undefined) {
      const requireMfa = part.auth.requireMfa === true || model.auth?.requireMfa === true;
      const apiKeys = isOn(part.auth.apiKeys) || isOn(model.auth?.apiKeys);
      model.auth = { ...(requireMfa ? { requireMfa: true } : {}), ...(apiKeys ? { apiKeys: true } : {}) };
    }
    if (part.tenancy !== undefined) model.tenancy = {};
    if (part.edge?.globalRateLimit === true) model.edge = { globalRateLimit: true };
    if (part.idempotency !== undefined) {
      keyed = true;
      for (const method of part.idempotency.methods) methods.add(method);
    }
  }
  if (keyed) model.idempotency = { methods: [...methods] };
  return model;
}

function isOn(value: boolean | object | undefined): boolean {
  return value !== undefined && value !== false;
}
