// `ApiKeys`: issuing, verifying, listing and revoking API keys over a store. It owns the rules of a key: its
// form and entropy (key.ts), the scopes it may carry (those this service offers), its expiry (refused from
// `expiresAt` on, and left out of listings), the number an owner may hold, and how often its last use is
// written (once a minute at most, not per request: a busy key would otherwise cost a write per call).
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { rejectUnknownOptions, optionKeys } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { RequestValidationError, type ValidationIssue } from '../../http/http-errors.js';
import { errorFields } from '../../log/error-fields.js';
import { forwardingLogger, type ForwardingLogger } from '../../log/forwarding-logger.js';
import type { Logger } from '../../log/logger.js';
import { apiKeyHash, isApiKeyForm, newApiKey } from './key.js';
import { MemoryApiKeyStore } from './memory-store.js';
import { ALL_SCOPES, isScope } from './scopes.js';
import type { ApiKeyFilter, ApiKeyRecord, ApiKeyStore } from './store.js';

/** A key as its owner sees it: everything but the hash. */
export type ApiKeyView = Omit<ApiKeyRecord, 'hash'>;

/** What a key is issued with. */
export interface ApiKeyInput {
  /** A name for its owner to recognise it by (at most 100 characters). */
  name?: string | undefined;
  /** What it may do: scopes this service offers, at least one. */
  scopes: readonly string[];
  tenantId?: string | undefined;
  userId?: string | undefined;
  /** Unix ms, in the future; absent for a key that does not expire. */
  expiresAt?: number | undefined;
}

/** A key just issued: the plain key, shown this once, and its record. */
export interface IssuedApiKey {
  key: string;
  record: ApiKeyView;
}

/** What a presented key turned out to be. */
export type ApiKeyCheck =
  { ok: true; key: ApiKeyView } | { ok: false; reason: 'malformed' | 'unknown' | 'expired' };

export interface ApiKeysOptions {
  /** Where keys are kept. Default in this process's memory. */
  store?: ApiKeyStore;
  /** The scopes a key may carry (`*` among them allows all-powerful keys). Default `['*']`. */
  scopes?: readonly string[];
  /** Live keys one owner (a user in a tenant, or in none) may hold. Default 100. */
  maxPerOwner?: number;
  /** How stale a key's lastUsedAt may get before a use writes it again, in ms. Default 60 000. */
  lastUsedResolutionMs?: number;
  clock?: () => number;
  /** Where a failed lastUsedAt write is reported. Default the app's logger once a plugin attaches it. */
  logger?: Logger;
}

const OPTION_KEYS = optionKeys<ApiKeysOptions>({
  store: true,
  scopes: true,
  maxPerOwner: true,
  lastUsedResolutionMs: true,
  clock: true,
  logger: true,
});

const OWNER = 'new ApiKeys()';
const MAX_NAME_LENGTH = 100;
export const DEFAULT_MAX_KEYS_PER_OWNER = 100;
const DEFAULT_LAST_USED_RESOLUTION_MS = 60_000;

/** The view of a record: the hash never leaves the service. */
export function viewOf(record: ApiKeyRecord): ApiKeyView {
  // Named fields rather than a rest copy: this runs on every key-authenticated request.
  return {
    id: record.id,
    name: record.name,
    start: record.start,
    last4: record.last4,
    scopes: record.scopes,
    tenantId: record.tenantId,
    userId: record.userId,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastUsedAt: record.lastUsedAt,
  };
}

export class ApiKeys {
  /** The scopes a key may carry, in the order they were given. */
  readonly scopes: readonly string[];
  readonly maxPerOwner: number;
  private readonly store: ApiKeyStore;
  private readonly clock: () => number;
  private readonly resolution: number;
  private readonly log: ForwardingLogger;
  private readonly loggerGiven: boolean;
  /** Keys whose lastUsedAt write is under way in this process: one write at a time per key. */
  private readonly touching = new Set<string>();

  constructor(options: ApiKeysOptions = {}) {
    rejectUnknownOptions(options, OPTION_KEYS, OWNER);
    const scopes = options.scopes ?? [ALL_SCOPES];
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope)) {
      throw invalidOption(OWNER, 'scopes', "a list of scopes like 'reports:read' (or '*')");
    }
    if (new Set(scopes).size !== scopes.length) {
      throw invalidOption(OWNER, 'scopes', 'each scope once');
    }
    this.scopes = Object.freeze([...scopes]);
    this.maxPerOwner = positiveInteger(options.maxPerOwner, DEFAULT_MAX_KEYS_PER_OWNER, 'maxPerOwner');
    this.resolution = positiveInteger(
      options.lastUsedResolutionMs,
      DEFAULT_LAST_USED_RESOLUTION_MS,
      'lastUsedResolutionMs',
    );
    const store = options.store ?? new MemoryApiKeyStore();
    for (const method of ['add', 'findByHash', 'get', 'list', 'remove', 'removeByUser', 'touch'] as const) {
      if (typeof (store as unknown as Record<string, unknown>)[method] !== 'function') {
        throw invalidOption(OWNER, 'store', `an ApiKeyStore (it has no ${method}())`);
      }
    }
    this.store = store;
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw invalidOption(OWNER, 'clock', 'a function answering Unix ms');
    }
    this.clock = options.clock ?? Date.now;
    this.log = forwardingLogger(options.logger);
    this.loggerGiven = options.logger !== undefined;
  }

  /** Reports through the app's logger from now on, unless the service was given one of its own. */
  logTo(logger: Logger): void {
    if (!this.loggerGiven) this.log.attach(logger);
  }

  /**
   * Issues a key: answers the plain key, which is not kept anywhere, and its record. Input the service cannot
   * take is 400 HTTP_VALIDATION (part `body`); an owner holding `maxPerOwner` live keys, 409
   * AUTH_APIKEY_LIMIT_REACHED.
   */
  async issue(input: ApiKeyInput): Promise<IssuedApiKey> {
    const now = this.clock();
    const checked = this.checkInput(input, now);
    const made = newApiKey();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      hash: made.hash,
      name: checked.name,
      start: made.start,
      last4: made.last4,
      scopes: checked.scopes,
      tenantId: input.tenantId,
      userId: input.userId,
      createdAt: now,
      expiresAt: input.expiresAt,
      lastUsedAt: undefined,
    };
    if ((await this.store.add(record, this.maxPerOwner, now)) === 'full') {
      throw errors.AUTH_APIKEY_LIMIT_REACHED({
        message: `At most ${this.maxPerOwner} API keys may be live at once; revoke one to issue another.`,
      });
    }
    return { key: made.key, record: viewOf(record) };
  }

  /**
   * What a presented key is: a live key, or why not. A live key's use is recorded (lastUsedAt) when the
   * stored one is older than the resolution; the write does not delay the answer.
   */
  async verify(presented: string): Promise<ApiKeyCheck> {
    if (typeof presented !== 'string' || !isApiKeyForm(presented)) return { ok: false, reason: 'malformed' };
    const record = await this.store.findByHash(apiKeyHash(presented));
    if (record === undefined) return { ok: false, reason: 'unknown' };
    const now = this.clock();
    if (isExpired(record, now)) return { ok: false, reason: 'expired' };
    if (record.lastUsedAt === undefined || now - record.lastUsedAt >= this.resolution)
      this.touch(record.id, now);
    return { ok: true, key: viewOf(record) };
  }

  /** The live keys `filter` matches, oldest first: expired keys are left out. */
  async list(filter: ApiKeyFilter = {}): Promise<ApiKeyView[]> {
    const now = this.clock();
    return (await this.store.list(filter)).filter((record) => !isExpired(record, now)).map(viewOf);
  }

  /** The key with this id, expired or not; undefined when there is none. */
  async get(id: string): Promise<ApiKeyView | undefined> {
    const record = await this.store.get(id);
    return record === undefined ? undefined : viewOf(record);
  }

  /**
   * Revokes the key: it is refused from now on, on every process sharing the store. With `owner`, only a key
   * of that owner (the routes pass the caller and their tenant). False when there was none to revoke.
   */
  async revoke(id: string, owner?: ApiKeyFilter): Promise<boolean> {
    return this.store.remove(id, owner);
  }

  /**
   * Revokes every key of the user, in every tenant (a password reset does: whoever held the account before
   * must not keep a way in). Answers how many there were.
   */
  async revokeAllOf(userId: string): Promise<number> {
    return this.store.removeByUser(userId);
  }

  private touch(id: string, now: number): void {
    if (this.touching.has(id)) return;
    this.touching.add(id);
    this.store
      .touch(id, now)
      .catch((error: unknown) =>
        this.log.warn('API key last-use write failed', { keyId: id, error: errorFields(error) }),
      )
      .finally(() => this.touching.delete(id));
  }

  private checkInput(input: ApiKeyInput, now: number): { name: string; scopes: string[] } {
    const issues: ValidationIssue[] = [];
    const name = input.name ?? '';
    if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH) {
      issues.push({ path: 'name', message: `must be a string of at most ${MAX_NAME_LENGTH} characters` });
    }
    const scopes = Array.isArray(input.scopes) ? [...(input.scopes as unknown[])] : undefined;
    if (scopes === undefined || scopes.length === 0) {
      issues.push({ path: 'scopes', message: 'must list at least one scope' });
    } else {
      scopes.forEach((scope, index) => {
        if (typeof scope !== 'string' || !this.scopes.includes(scope)) {
          issues.push({
            path: `scopes.${index}`,
            message: `must be one of the scopes this service offers (${this.scopes.join(', ')})`,
          });
        } else if (scopes.indexOf(scope) !== index) {
          issues.push({ path: `scopes.${index}`, message: 'repeats an earlier scope' });
        }
      });
    }
    const { expiresAt } = input;
    if (expiresAt !== undefined && (!Number.isSafeInteger(expiresAt) || expiresAt <= now)) {
      issues.push({ path: 'expiresAt', message: 'must be a time in the future, in Unix milliseconds' });
    }
    for (const field of ['tenantId', 'userId'] as const) {
      const value = input[field];
      if (value !== undefined && (typeof value !== 'string' || value === '')) {
        issues.push({ path: field, message: 'must be a non-empty string' });
      }
    }
    if (issues.length > 0) throw new RequestValidationError('body', issues);
    return { name: name as string, scopes: scopes as string[] };
  }
}

function isExpired(record: ApiKeyRecord, now: number): boolean {
  return record.expiresAt !== undefined && record.expiresAt <= now;
}

function positiveInteger(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw invalidOption(OWNER, name, 'a positive integer');
  }
  return value as number;
}
