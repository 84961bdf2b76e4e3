// Every schema migration, in order. Migrations are TypeScript modules so they ship in dist/ with the code. A
// released migration never changes: a later change is a new file with the next id, listed here.
import { sql as auth } from './0001-auth.js';
import { sql as edge } from './0002-edge.js';
import { sql as mcp } from './0003-mcp.js';
import { sql as idempotencyFingerprint } from './0004-idempotency-fingerprint.js';
import { sql as mcpSessionOwner } from './0005-mcp-session-owner.js';
import { sql as tenancy } from './0006-tenancy.js';
import { sql as mfa } from './0007-mfa.js';
import { sql as passkeys } from './0008-passkeys.js';
import { sql as apiKeys } from './0009-api-keys.js';
import { sql as accountLinks } from './0010-account-links.js';
import { sql as files } from './0011-files.js';

export interface Migration {
  /** Applied in ascending order; recorded in svc_migrations. */
  id: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  { id: 1, name: '0001-auth', sql: auth },
  { id: 2, name: '0002-edge', sql: edge },
  { id: 3, name: '0003-mcp', sql: mcp },
  { id: 4, name: '0004-idempotency-fingerprint', sql: idempotencyFingerprint },
  { id: 5, name: '0005-mcp-session-owner', sql: mcpSessionOwner },
  { id: 6, name: '0006-tenancy', sql: tenancy },
  { id: 7, name: '0007-mfa', sql: mfa },
  { id: 8, name: '0008-passkeys', sql: passkeys },
  { id: 9, name: '0009-api-keys', sql: apiKeys },
  { id: 10, name: '0010-account-links', sql: accountLinks },
  { id: 11, name: '0011-files', sql: files },
];
