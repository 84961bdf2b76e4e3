// The per-request context: ids, a request-scoped container and what enrichers add (user, tenant, ...).
// The child scope is created on first use, so requests that never touch the container pay nothing for it.
import type { Scope } from '../app/container.js';
import { HANDLER_STARTED } from './handler-started.js';
import type { RequestContext } from './types.js';

class SvcRequestContext implements RequestContext {
  [key: string]: unknown;
  requestId: string;
  correlationId: string;
  user: unknown = undefined;
  tenant: unknown = undefined;
  apiKey: unknown = undefined;
  amr: string[] | undefined = undefined;
  /** Which credential the auth enricher accepted (runtime/auth/http/credentials.ts). */
  credential: unknown = undefined;
  // Declared up front, like every field svc's own plugins set, so contexts keep one shape (hook-slots.ts).
  traceId: string | undefined = undefined;
  spanId: string | undefined = undefined;
  /** Per-request state of request hooks, under each hook's own symbol (hook-slots.ts). */
  hookSlots: Record<symbol, unknown> | undefined = undefined;
  /** Set when the route's handler starts (handler-started.ts). */
  [HANDLER_STARTED] = false;
  #root: Scope | undefined;
  #scope: Scope | undefined = undefined;

  constructor(requestId: string, correlationId: string, root: Scope | undefined) {
    this.requestId = requestId;
    this.correlationId = correlationId;
    this.#root = root;
  }

  /** A child scope of the app container, created on first access; undefined when the pipeline has none. */
  get container(): Scope | undefined {
    if (this.#scope === undefined && this.#root !== undefined) this.#scope = this.#root.createScope();
    return this.#scope;
  }

  set container(scope: Scope | undefined) {
    this.#scope = scope;
    if (scope === undefined) this.#root = undefined;
  }
}

/** A fresh request context; `root` is the app container whose child scope the request gets. */
export function createRequestContext(
  requestId: string,
  correlationId: string,
  root: Scope | undefined,
): RequestContext {
  return new SvcRequestContext(requestId, correlationId, root);
}
