// The API-key routes of spec/modules/auth.yaml (`features: { apiKeys }`): create, list and revoke the caller's
// keys in the request's tenant (or, when it names none, their keys of no tenant). They exist only when the Auth
// has API keys; authRoutes() leaves them out otherwise. A key never manages keys: the routes say `apiKey:
// false`, and the handlers take the user of a sign-in only (signedInUser), so a key cannot mint a key even
// where no API-key plugin enforces the meta. None is cached: one answers the key itself, the others one user's data.
import type { Handlers as AuthHandlers } from '../../../generated/modules/auth/routes.js';
import type { ApiKey } from '../../../generated/modules/auth/types.js';
import type { RequestContext } from '../../http/types.js';
import { tenantOf } from '../../tenancy/policy.js';
import type { ApiKeyView } from '../apikeys/service.js';
import type { Auth } from '../auth.js';
import { signedInUser } from './credentials.js';
import { noStore } from './no-store.js';

/** The route ids of the `apiKeys` feature: mounted only for an Auth with API keys. */
export const API_KEY_ROUTE_IDS = ['apiKeyCreate', 'apiKeyList', 'apiKeyRevoke'] as const;

export type ApiKeyRouteId = (typeof API_KEY_ROUTE_IDS)[number];

/** The key as the API shows it: its owner's id is the caller's, and absent values are left out. */
function shown(view: ApiKeyView): ApiKey {
  const key: ApiKey = {
    id: view.id,
    name: view.name,
    start: view.start,
    last4: view.last4,
    scopes: [...view.scopes],
    createdAt: view.createdAt,
  };
  if (view.tenantId !== undefined) key.tenantId = view.tenantId;
  if (view.expiresAt !== undefined) key.expiresAt = view.expiresAt;
  if (view.lastUsedAt !== undefined) key.lastUsedAt = view.lastUsedAt;
  return key;
}

/** The tenant the caller acts in: one whose membership the tenancy enricher confirmed, or none. */
function currentTenant(context: RequestContext): string | undefined {
  return tenantOf(context)?.id;
}

export function apiKeyHandlers(auth: Auth): Pick<AuthHandlers, ApiKeyRouteId> {
  return {
    async apiKeyCreate({ body, context, reply }) {
      noStore(reply);
      const user = signedInUser(context);
      const issued = await auth.issueApiKey(user, context.amr, body, currentTenant(context));
      return { key: issued.key, record: shown(issued.record) };
    },

    async apiKeyList({ context, reply }) {
      noStore(reply);
      const user = signedInUser(context);
      return { keys: (await auth.listApiKeys(user, currentTenant(context))).map(shown) };
    },

    async apiKeyRevoke({ params, context, reply }) {
      noStore(reply);
      await auth.revokeApiKey(signedInUser(context), params.id, currentTenant(context));
      return undefined;
    },
  };
}
