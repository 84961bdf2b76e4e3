// What only the spec as a whole can tell about API-key scopes: every scope a route's `meta.scopes` asks for is
// one a key can hold (`modules.auth.apiKeys.scopes`, unless those include `*`). A scope no key can carry would
// refuse every key on the route, and the runtime would refuse to start; the build says so at the item. The
// offered scopes decide this check and the scopes openapi.json lists, so they are written out: a `${VAR}` there
// is refused. Malformed scopes are refused by the published schema (svc.schema.json#/$defs/apiKeyScope).
// The key header is written into openapi.json too, so it is written out as well, and it must not be a header
// another module reads (the tenant's, the idempotency key's): every request naming a tenant would then be read
// as presenting a key. A route that refuses keys (`apiKey: false`) declaring scopes says two opposite things.
import { API_KEY_RESERVED_HEADERS } from '../../shared/api-key-meta.js';
import type { ModuleSettingsIR } from '../../shared/ir.js';
import { asMap, entry, type LoadContext, type Path } from './context.js';
import { at } from './describe.js';
import { closest } from './suggest.js';
import type { MapNode, Node, ScalarNode } from './yaml-tree.js';

const ALL_SCOPES = '*';
const SCOPES_PATH: Path = ['modules', 'auth', 'apiKeys', 'scopes'];

/** Reports `meta.scopes` entries no key can hold; nothing while API keys are off (meta-modules.ts says so). */
export function checkApiKeyScopes(
  ctx: LoadContext,
  routesNode: MapNode | undefined,
  modulesNode: Node | undefined,
  settings: ModuleSettingsIR,
): void {
  const apiKeys = entry(asMap(entry(asMap(modulesNode), 'auth')), 'apiKeys');
  // Off (false, absent, a `${VAR}` refused by modules.ts) leaves nothing to check; `apiKeys: true` offers `*`.
  const on = apiKeys?.kind === 'map' || (apiKeys?.kind === 'scalar' && apiKeys.value === true);
  if (apiKeys === undefined || !on) return;
  checkKeyHeader(ctx, entry(asMap(apiKeys), 'header'), settings);
  for (const route of routesNode?.entries ?? []) {
    const meta = asMap(entry(asMap(route.value), 'meta'));
    const refuses = entry(meta, 'apiKey');
    const scopes = entry(meta, 'scopes');
    if (refuses?.kind === 'scalar' && refuses.value === false && scopes?.kind === 'seq') {
      const path = ['routes', route.key, 'meta', 'scopes'];
      ctx.problems.add(
        scopes.loc,
        path,
        `${at(path)}names scopes a key must hold, but the route refuses every key (apiKey: false)`,
        'remove scopes (a signed-in user needs none), or remove apiKey: false to let keys with those scopes in',
      );
    }
  }
  const offered = offeredScopes(ctx, entry(asMap(apiKeys), 'scopes'));
  if (offered === undefined || offered.includes(ALL_SCOPES)) return;
  for (const route of routesNode?.entries ?? []) {
    const scopes = entry(asMap(entry(asMap(route.value), 'meta')), 'scopes');
    if (scopes?.kind !== 'seq') continue;
    scopes.items.forEach((item, index) => {
      if (item.kind !== 'scalar' || typeof item.value !== 'string' || item.broken === true) return;
      if (offered.includes(item.value)) return;
      const path = ['routes', route.key, 'meta', 'scopes', index];
      ctx.problems.add(
        item.loc,
        path,
        `${at(path)}scope '${item.value}' is not one of modules.auth.apiKeys.scopes: no key could hold it`,
        `${didYouMean(item.value, offered)}the scopes keys may carry: ${offered.join(', ')}; or add '${item.value}' to modules.auth.apiKeys.scopes`,
      );
    });
  }
}

/**
 * The scopes a key may carry, or undefined when they cannot be known: a `${VAR}` (reported here) or a shape the
 * structure check refused already. Absent, keys may carry every scope.
 */
function offeredScopes(ctx: LoadContext, node: Node | undefined): readonly string[] | undefined {
  if (node === undefined) return [ALL_SCOPES];
  if (node.kind !== 'seq') return undefined;
  const scopes: string[] = [];
  for (const [index, item] of node.items.entries()) {
    if (item.kind !== 'scalar') return undefined;
    if (item.template !== undefined) {
      refuseReference(ctx, item, [...SCOPES_PATH, index]);
      return undefined;
    }
    if (typeof item.value !== 'string') return undefined;
    scopes.push(item.value);
  }
  return scopes;
}

/** The header a key is sent in: written out, and none another module reads. */
function checkKeyHeader(ctx: LoadContext, node: Node | undefined, settings: ModuleSettingsIR): void {
  if (node?.kind !== 'scalar') return;
  const path: Path = ['modules', 'auth', 'apiKeys', 'header'];
  if (node.template !== undefined) {
    ctx.problems.add(
      node.loc,
      path,
      `${path.join('.')} is the header openapi.json documents keys in, so it cannot be a \${VAR} resolved at start`,
      'write the header name itself, e.g. header: x-api-key',
    );
    return;
  }
  if (typeof node.value !== 'string') return;
  const header = node.value.toLowerCase();
  if (API_KEY_RESERVED_HEADERS.includes(header)) {
    ctx.problems.add(
      node.loc,
      path,
      `${path.join('.')} is ${node.value}, which already means something else: a key in it would be read as that too`,
      'give API keys a header of their own (the default is x-api-key)',
    );
    return;
  }
  const others: [string, string | undefined][] = [
    ['modules.tenancy.header', settings.tenancy?.header],
    ['modules.idempotency.header', settings.idempotency?.header],
  ];
  for (const [where, other] of others) {
    if (other?.toLowerCase() !== header) continue;
    ctx.problems.add(
      node.loc,
      path,
      `${path.join('.')} is ${node.value}, the header ${where} reads: every request carrying it would be read as presenting a key`,
      'give API keys a header of their own (the default is x-api-key)',
    );
  }
}

function refuseReference(ctx: LoadContext, node: ScalarNode, path: Path): void {
  ctx.problems.add(
    node.loc,
    path,
    `${SCOPES_PATH.join('.')} decides what the build checks meta.scopes against and the scopes openapi.json lists, so it cannot hold a \${VAR} resolved at start`,
    `write the scopes themselves, e.g. scopes: ['notes:read', 'notes:write']`,
  );
}

/** `did you mean 'notes:read'? ` when `input` looks like a typo of an offered scope, else nothing. */
function didYouMean(input: string, candidates: readonly string[]): string {
  const match = closest(input, candidates);
  return match === undefined ? '' : `did you mean '${match}'? `;
}
