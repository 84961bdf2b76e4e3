// How a tenancy bench server tells the runner its tenant: the memberships store makes a tenant's id at random,
// so the server writes it to a file named after the port it listens on, before it announces its URL; the
// runner reads it back for that server's `x-tenant-id`. The bearer token's user (bench/auth-token.ts) is the
// member, so its id must stay the one the token is issued for.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Workload } from '../http.js';

/** The user benchBearerHeaders() issues the token for: the servers make it a member of their tenant. */
export const BENCH_MEMBER_ID = 'bench-user';

/** Sent to the server without tenancy: a well-formed id it never reads, the same size as a real one. */
const UNREAD_TENANT_ID = '00000000-0000-4000-8000-000000000000';

function tenantIdFile(serverUrl: string): string {
  return path.join(tmpdir(), `svc-bench-tenant-${new URL(serverUrl).port}`);
}

/** Server side: records the tenant for the runner, and removes the record when the server exits. */
export function publishBenchTenantId(serverUrl: string, tenantId: string): void {
  const file = tenantIdFile(serverUrl);
  writeFileSync(file, tenantId);
  process.on('exit', () => rmSync(file, { force: true }));
}

/** Runner side (a workload's `prepare`): the tenant header for the tenancy server at `serverUrl`. */
export async function benchTenantHeaders(serverUrl: string): Promise<Record<string, string>> {
  return { 'x-tenant-id': readFileSync(tenantIdFile(serverUrl), 'utf8') };
}

/** Runner side: the same header for a server without tenancy. */
export const UNREAD_TENANT_HEADERS: Readonly<Record<string, string>> = { 'x-tenant-id': UNREAD_TENANT_ID };

/** The bench's two routes, each naming the tenant: one per table row pair of a tenancy bench. */
const TENANT_SCOPED: Workload[] = [
  { name: 'GET /hello (JSON)', method: 'GET', path: '/hello' },
  {
    name: 'POST /items (validated JSON body)',
    method: 'POST',
    path: '/items',
    body: JSON.stringify({ name: 'widget', quantity: 3, tags: ['a', 'b'] }),
  },
];

/**
 * The workloads of a tenancy pair: the measured server is sent its own tenant; so is the baseline when it has
 * tenancy too, otherwise it gets UNREAD_TENANT_HEADERS (the same header, read by nothing).
 */
export function tenantScopedWorkloads(baselineHasTenancy: boolean): Workload[] {
  return TENANT_SCOPED.map((workload) => {
    const scoped = { ...workload, prepare: benchTenantHeaders };
    if (baselineHasTenancy) return scoped;
    return { ...workload, headers: { ...UNREAD_TENANT_HEADERS }, svc: scoped };
  });
}
