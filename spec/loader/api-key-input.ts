// The auth module declares ApiKeyInput.scopes as any strings: it cannot know what a service offers. The
// application's documents (openapi.json, types, the client) should list the scopes its keys may carry
// (`modules.auth.apiKeys.scopes`), so the application's copy of the resource gets them as an enum. The
// runtime checks the same list when a key is issued.
import type { JsonSchemaObject, ResourceIR } from '../../shared/ir.js';

/** The auth module's resource whose `scopes` the application's offered scopes narrow. */
export const API_KEY_INPUT = 'ApiKeyInput';

/** `resources` with ApiKeyInput's `scopes.items` narrowed to `{ type: string, enum: offered }`. */
export function withOfferedScopes(
  resources: readonly ResourceIR[],
  offered: readonly string[],
): ResourceIR[] {
  return resources.map((resource) => {
    if (resource.name !== API_KEY_INPUT || typeof resource.schema !== 'object') return resource;
    const properties = resource.schema.properties as Record<string, JsonSchemaObject> | undefined;
    const scopes = properties?.scopes;
    if (scopes === undefined) return resource;
    return {
      ...resource,
      schema: {
        ...resource.schema,
        properties: { ...properties, scopes: { ...scopes, items: { type: 'string', enum: [...offered] } } },
      },
    };
  });
}
