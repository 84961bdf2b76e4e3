// Named metadata buckets: how plugins publish routes, enrichers, guards and claims to each other without
// importing each other. Other modules add their buckets by augmenting `MetadataBuckets`.
import type {
  Enricher,
  Guard,
  GuardedMetaClaim,
  MetaValidator,
  RequestHook,
  Route,
  RouteVisibilityCheck,
  SvcRequest,
} from '../http/types.js';
import type { RouteErrorModules } from '../../shared/openapi/error-codes.js';
import type { ServeMode } from './serve-mode.js';

export interface MetadataBuckets {
  'http:routes': Route;
  'http:enrichers': Enricher;
  'http:guards': Guard;
  'http:guarded-meta': GuardedMetaClaim;
  /** Extra meta keys a plugin declares guarded: a route using one must be claimed in 'http:guarded-meta'. */
  'http:guarded-meta-keys': string;
  'http:meta-validators': MetaValidator;
  'http:route-visibility': RouteVisibilityCheck;
  /** Request and response hooks of edge plugins, applied to every request svc answers. */
  'http:request-hooks': RequestHook;
  /** The request header idempotency keys travel in (idempotencyPlugin's `header`), for documents. */
  'idempotency:header': string;
  /**
   * What a plugin does on every route that adds error codes (its part of the module model: auth, the global
   * rate limit, idempotency methods), so the served OpenAPI document lists them as the generated one does.
   */
  'http:route-error-modules': RouteErrorModules;
  /**
   * The tenant a request names (tenancyPlugin: its header, resolver or path parameter), before any
   * membership check; idempotency scopes keys by it. It may throw the request's refusal (TENANT_INVALID).
   */
  'http:request-tenant': (input: {
    request: SvcRequest;
    route: Route;
  }) => string | undefined | Promise<string | undefined>;
  /**
   * Request headers that say whom or which tenant a request acts for, beyond the credentials (tenancyPlugin's
   * tenant header): agent tool calls inherit them, as they inherit the caller's credentials.
   */
  'http:identity-headers': string;
  /**
   * Request headers that carry a credential beyond the usual ones (apiKeyPlugin's key header when renamed):
   * idempotency scopes keys by them, so callers presenting different credentials never share a key.
   */
  'http:credential-headers': string;
  /** Links a plugin serves (OpenAPI, MCP, API-key page); serve() prints them at start. */
  'app:urls': { label: string; path: string };
  /** Ways to run the app other than listening (e.g. MCP over stdio), chosen by SVC_SERVE_MODE in serve(). */
  'app:serve-modes': ServeMode;
}

export type BucketName = keyof MetadataBuckets;

export class Metadata {
  private readonly buckets = new Map<BucketName, unknown[]>();

  add<B extends BucketName>(bucket: B, ...items: MetadataBuckets[B][]): void {
    let list = this.buckets.get(bucket);
    if (!list) this.buckets.set(bucket, (list = []));
    list.push(...items);
  }

  list<B extends BucketName>(bucket: B): readonly MetadataBuckets[B][] {
    return (this.buckets.get(bucket) ?? []) as MetadataBuckets[B][];
  }
}
