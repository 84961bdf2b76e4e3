// The API-key enricher: a key presented as `Authorization: Bearer mk_…` or in the key header (`x-api-key` by
// default) puts `context.apiKey = { id, scopes, tenantId?, userId? }` on the request, and the key's user
// when it has one. Two different keys (in the two places, or the header repeated) are 400
// AUTH_APIKEY_AMBIGUOUS, and so is a key of another user than the bearer token or session presented with it.
// A key presented on purpose that is not live is 401: AUTH_TOKEN_EXPIRED once expired, AUTH_TOKEN_INVALID
// otherwise (malformed, unknown, revoked, or its user gone). A request without a key costs two header reads.
import { errors } from '../../../generated/modules/errors.js';
import type { Enricher, RequestContext, RequestHeaders } from '../../http/types.js';
import { userIdOf } from '../../tenancy/policy.js';
import type { ApiKeys } from '../apikeys/service.js';
import { publicUser, type UserSource } from '../stores/users.js';
import type { RequestApiKey } from './apikey-rules.js';
import { bearerToken, headerValue } from './credentials.js';
import { API_KEY_BEARER_PREFIX } from './enricher.js';

export const API_KEY_ENRICHER = 'svc:api-keys';

/** The values of a header node may deliver joined by ', ' or as a list (a key never holds a comma). */
function headerKeys(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  return values.flatMap((value) => value.split(',')).map((value) => value.trim());
}

/** The one key a request presents, or undefined; AUTH_APIKEY_AMBIGUOUS when it presents two different ones. */
export function presentedKey(headers: RequestHeaders, header: string): string | undefined {
  const authorization = headerValue(headers.authorization);
  const bearer = authorization === undefined ? undefined : bearerToken(authorization);
  const fromBearer = bearer !== undefined && bearer.startsWith(API_KEY_BEARER_PREFIX) ? bearer : undefined;
  const raw = headers[header];
  if (raw === undefined) return fromBearer;
  // The common case, one key in the header alone, without building a set.
  if (fromBearer === undefined && typeof raw === 'string' && !raw.includes(',')) return raw.trim();
  const keys = new Set(headerKeys(raw));
  if (fromBearer !== undefined) keys.add(fromBearer);
  if (keys.size > 1) throw errors.AUTH_APIKEY_AMBIGUOUS();
  const [key] = keys;
  // An empty header is a key presented on purpose, and not one.
  return key ?? '';
}

export function apiKeyEnricher(keys: ApiKeys, users: UserSource, header: string): Enricher {
  const accept = async (presented: string, context: RequestContext): Promise<void> => {
    const check = await keys.verify(presented);
    if (!check.ok) {
      throw check.reason === 'expired'
        ? errors.AUTH_TOKEN_EXPIRED({ message: 'The API key has expired.' })
        : errors.AUTH_TOKEN_INVALID({ message: 'The API key is not valid.' });
    }
    const { key } = check;
    if (key.userId !== undefined) {
      const signedIn = userIdOf(context.user);
      if (signedIn !== undefined && signedIn !== key.userId) {
        throw errors.AUTH_APIKEY_AMBIGUOUS({
          message: 'The API key and the other credential presented belong to different users.',
        });
      }
      if (signedIn === undefined) {
        const user = await users.findById(key.userId);
        // A key outlives nothing of its owner: an account that is gone takes its keys with it.
        if (user === null) throw errors.AUTH_TOKEN_INVALID({ message: 'The API key is not valid.' });
        context.user = publicUser(user);
      }
    }
    const apiKey: RequestApiKey = { id: key.id, scopes: key.scopes };
    if (key.tenantId !== undefined) apiKey.tenantId = key.tenantId;
    if (key.userId !== undefined) apiKey.userId = key.userId;
    context.apiKey = apiKey;
  };

  return {
    name: API_KEY_ENRICHER,
    enrich({ request, context }) {
      const presented = presentedKey(request.headers, header);
      if (presented === undefined) return;
      return accept(presented, context);
    },
  };
}
