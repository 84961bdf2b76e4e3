// `idempotencyPlugin(...)`: a keyed request runs its
// handler once; a repeat within the retention replays the stored answer with `Idempotent-Replayed: true`
// before enrichers and guards; a repeat while the first runs gets 409 IDEMPOTENCY_CONFLICT; the same key with
// another request gets 422 IDEMPOTENCY_KEY_REUSED. Only the handler's own answer below 500 is kept; anything
// else (a guard's 401 or 429, a validation 400, a 5xx, an answer carrying credentials) frees the key.
import type { App, Plugin } from '../app/app.js';
import { errors } from '../../generated/modules/errors.js';
import { existingHookSlots, hookSlots } from '../http/hook-slots.js';
import {
  HTTP_METHODS,
  type HttpMethod,
  type OutgoingResponse,
  type RequestHook,
  type Route,
  type SvcRequest,
} from '../http/types.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { requestFingerprint } from './fingerprint.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS, MemoryIdempotencyStore } from './memory-store.js';
import { DEFAULT_CREDENTIAL_HEADERS, idempotencyScope } from './scope.js';
import type { IdempotencyStore } from './store.js';

import {
  DEFAULT_IDEMPOTENCY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../../shared/idempotency-headers.js';
import { invalidOption } from '../config/option-errors.js';

export { DEFAULT_IDEMPOTENCY_HEADER, IDEMPOTENT_REPLAYED_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH };

export interface IdempotencyPluginOptions {
  /** Where keys live. Default a `MemoryIdempotencyStore` with `ttlMs`. */
  store?: IdempotencyStore;
  /** Request header carrying the key. Default `idempotency-key`. */
  header?: string;
  /** Methods whose routes honour the key. Default `['POST']`. */
  methods?: readonly HttpMethod[];
  /** Retention of the default store, in ms. Default 86400000. */
  ttlMs?: number;
  /** Headers that identify the caller. Default authorization, x-session-id, cookie, x-api-key. */
  credentialHeaders?: readonly string[];
  /** Cache and replay requests carrying none of the credential headers. Default false. */
  allowAnonymous?: boolean;
}

const OPTION_NAMES = optionKeys<IdempotencyPluginOptions>({
  store: true,
  header: true,
  methods: true,
  ttlMs: true,
  credentialHeaders: true,
  allowAnonymous: true,
});

interface ResolvedOptions {
  store: IdempotencyStore;
  header: string;
  methods: ReadonlySet<HttpMethod>;
  credentialHeaders: readonly string[];
  allowAnonymous: boolean;
}

const OWNER = 'idempotencyPlugin()';

function fail(option: string, expected: string, detail?: string): never {
  throw invalidOption(OWNER, option, expected, detail);
}

function headerName(value: unknown, option: string): string {
  if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) {
    fail(option, 'HTTP header names');
  }
  return value.toLowerCase();
}

/** The `ttlMs` option, checked; the default retention when absent. */
export function idempotencyTtl(value: unknown): number {
  const ttlMs = value ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    fail('ttlMs', 'a whole number of milliseconds, 1 or more');
  }
  return ttlMs;
}

function resolveOptions(options: IdempotencyPluginOptions): ResolvedOptions {
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const methods = options.methods ?? ['POST'];
  if (!Array.isArray(methods) || methods.some((method) => !HTTP_METHODS.includes(method))) {
    fail('methods', `a list of methods among ${HTTP_METHODS.join(', ')}`);
  }
  const credentialHeaders = options.credentialHeaders ?? DEFAULT_CREDENTIAL_HEADERS;
  if (!Array.isArray(credentialHeaders)) fail('credentialHeaders', 'an array of header names');
  const allowAnonymous = options.allowAnonymous ?? false;
  if (typeof allowAnonymous !== 'boolean') fail('allowAnonymous', 'a boolean');
  const ttlMs = idempotencyTtl(options.ttlMs);
  if (options.store !== undefined && options.ttlMs !== undefined) {
    fail(
      'ttlMs',
      'left out when a store is given',
      'ttlMs configures the default store; give your own store its retention instead',
    );
  }
  return {
    store: options.store ?? new MemoryIdempotencyStore({ ttlMs }),
    header: headerName(options.header ?? DEFAULT_IDEMPOTENCY_HEADER, 'header'),
    methods: new Set(methods),
    credentialHeaders: credentialHeaders.map((name) => headerName(name, 'credentialHeaders')),
    allowAnonymous,
  };
}

/** Per-request state: the reservation this request made, settled before its answer is written. */
interface Reservation {
  scope: string;
  fingerprint: string;
}

const RESERVATION: unique symbol = Symbol('svc:idempotency');

/**
 * An answer that must not be kept: `Cache-Control: no-store` (RFC 9111 §5.2.2.5) forbids storing any part of
 * it, and every answer carrying a token or a session is marked so (RFC 6749 §5.1).
 */
function forbidsStoring(response: OutgoingResponse): boolean {
  const cacheControl = response.getHeader('cache-control');
  if (cacheControl === undefined) return false;
  const text = Array.isArray(cacheControl) ? cacheControl.join(',') : String(cacheControl);
  return /(^|,)\s*no-store\s*(,|$)/i.test(text);
}

/** Only the handler's own answer below 500, held as text, may be replayed; anything else frees the key. */
function isReplayable(response: OutgoingResponse): boolean {
  return (
    response.fromHandler &&
    response.status < 500 &&
    !response.streamed &&
    !Buffer.isBuffer(response.body) &&
    !forbidsStoring(response)
  );
}

/** `app.register(idempotencyPlugin())`; keyed POSTs then run once per caller, tenant, route and key. */
export function idempotencyPlugin(options: IdempotencyPluginOptions = {}): Plugin {
  const { store, header, methods, credentialHeaders, allowAnonymous } = resolveOptions(options);

  /** Stores the answer, or frees the key; a failure to store frees it too, so retries are not stuck on 409. */
  function settle(reservation: Reservation, response: OutgoingResponse): Promise<void> {
    const { scope, fingerprint } = reservation;
    if (!isReplayable(response)) return store.release(scope);
    const record = {
      status: response.status,
      body: (response.body as string | undefined) ?? '',
      ...(response.contentType === undefined ? {} : { contentType: response.contentType }),
      fingerprint,
    };
    return store.complete(scope, record).catch((error: unknown) =>
      store
        .release(scope)
        .catch(() => undefined)
        .then(() => {
          throw error;
        }),
    );
  }

  // The tenancy plugin's reading of the request's tenant, published in its setup (which may follow ours).
  let published: App | undefined;
  // The headers that say who calls: the configured ones, then any a plugin publishes as carrying a credential
  // (a custom API-key header), so two holders of different keys never share an idempotency key.
  let callerHeaders: readonly string[] | undefined;
  const callerHeadersOf = (): readonly string[] =>
    (callerHeaders ??= [
      ...new Set([
        ...credentialHeaders,
        ...(published?.metadata.list('http:credential-headers') ?? []).map((name) => name.toLowerCase()),
      ]),
    ]);
  const requestTenant = async (request: SvcRequest, route: Route): Promise<string | undefined> => {
    for (const resolve of published?.metadata.list('http:request-tenant') ?? []) {
      const tenant = await resolve({ request, route });
      if (tenant !== undefined) return tenant;
    }
    return undefined;
  };

  const hook: RequestHook = {
    name: 'svc:idempotency',
    async onRequest({ request, reply, route }) {
      // The neutral 404/405 and edge routes have no handler effect to protect.
      if (route === undefined || route.edge === true) return;
      // `meta.idempotency: false` (routes whose answers carry credentials): never kept, never replayed.
      const declared = route.meta.idempotency;
      if (declared === false) return;
      // `meta.idempotency` opts a route in whatever its method; 'required' refuses a request without a key.
      const optedIn = declared === 'required' || declared === 'optional';
      if (!optedIn && !methods.has(request.method)) return;
      const raw = request.headers[header];
      if (raw === undefined) {
        if (declared === 'required') throw errors.IDEMPOTENCY_KEY_REQUIRED();
        return;
      }
      const key = Array.isArray(raw) ? raw.join(', ') : raw;
      if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw errors.IDEMPOTENCY_KEY_INVALID();
      // A route that declares `meta.idempotency` opted in for every caller: the generated client retries its
      // calls, which is only safe if anonymous keys are honoured too (their scope then holds no credential).
      const scope = idempotencyScope({
        request,
        route,
        key,
        credentialHeaders: callerHeadersOf(),
        allowAnonymous: allowAnonymous || optedIn,
        tenant: await requestTenant(request, route),
      });
      if (scope === undefined) return;
      const fingerprint = requestFingerprint(request, route);

      let state = await store.get(scope);
      if (state === undefined) {
        if (await store.setPending(scope)) {
          hookSlots(request)[RESERVATION] = { scope, fingerprint } satisfies Reservation;
          return;
        }
        // Another request reserved the key between get and setPending: answer from what it left.
        state = await store.get(scope);
      }
      if (state === undefined || state === 'pending') throw errors.IDEMPOTENCY_CONFLICT();
      if (state.fingerprint !== undefined && state.fingerprint !== fingerprint) {
        throw errors.IDEMPOTENCY_KEY_REUSED();
      }
      reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
      reply.finish(state.status, state.body === '' ? undefined : state.body, state.contentType);
    },
    // Settled before the answer is written: a client retrying the moment it has the answer finds the record
    // complete (or the key free), on any process, instead of a 409 from a record still pending.
    beforeResponse(response) {
      const slots = existingHookSlots(response.request);
      if (slots === undefined) return;
      const reservation = slots[RESERVATION] as Reservation | undefined;
      if (reservation === undefined) return;
      slots[RESERVATION] = undefined;
      return settle(reservation, response);
    },
  };

  return {
    name: 'svc:idempotency',
    setup(app: App) {
      app.metadata.add('http:request-hooks', hook);
      published = app;
      app.metadata.add('http:guarded-meta', { key: 'idempotency', plugin: 'svc:idempotency' });
      // As the application spelt it, for documents (requests are matched lower-cased).
      app.metadata.add('idempotency:header', options.header ?? DEFAULT_IDEMPOTENCY_HEADER);
      // For documents: routes of these methods take a key (and may answer its codes) unless they opt out.
      app.metadata.add('http:route-error-modules', { idempotency: { methods: [...methods] } });
    },
  };
}
