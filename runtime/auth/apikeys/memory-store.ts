// The in-memory API-key store: keys live as long as the process and are known to it alone (docs/stores.md).
// Each operation is synchronous up to its answer, so count-and-insert and remove are atomic in one process.
import type { ApiKeyAddResult, ApiKeyFilter, ApiKeyRecord, ApiKeyStore } from './store.js';

function copy(record: ApiKeyRecord): ApiKeyRecord {
  return { ...record, scopes: [...record.scopes] };
}

function matches(record: ApiKeyRecord, filter: ApiKeyFilter): boolean {
  const fits = (value: string | undefined, wanted: string | null | undefined) =>
    wanted === undefined || (wanted === null ? value === undefined : value === wanted);
  return fits(record.userId, filter.userId) && fits(record.tenantId, filter.tenantId);
}

export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly byId = new Map<string, ApiKeyRecord>();
  private readonly idByHash = new Map<string, string>();

  async add(record: ApiKeyRecord, maxPerOwner: number, now: number): Promise<ApiKeyAddResult> {
    const owner: ApiKeyFilter = { userId: record.userId ?? null, tenantId: record.tenantId ?? null };
    let live = 0;
    for (const stored of this.byId.values()) {
      if (matches(stored, owner) && (stored.expiresAt === undefined || stored.expiresAt > now)) live++;
    }
    if (live >= maxPerOwner) return 'full';
    if (this.byId.has(record.id) || this.idByHash.has(record.hash)) {
      throw new Error('MemoryApiKeyStore: a key with this id or hash is stored already.');
    }
    this.byId.set(record.id, copy(record));
    this.idByHash.set(record.hash, record.id);
    return 'added';
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.idByHash.get(hash);
    const record = id === undefined ? undefined : this.byId.get(id);
    return record === undefined ? undefined : copy(record);
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const record = this.byId.get(id);
    return record === undefined ? undefined : copy(record);
  }

  async list(filter: ApiKeyFilter): Promise<ApiKeyRecord[]> {
    return [...this.byId.values()]
      .filter((record) => matches(record, filter))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(copy);
  }

  async remove(id: string, owner?: ApiKeyFilter): Promise<boolean> {
    const record = this.byId.get(id);
    if (record === undefined || (owner !== undefined && !matches(record, owner))) return false;
    this.byId.delete(id);
    this.idByHash.delete(record.hash);
    return true;
  }

  async removeByUser(userId: string): Promise<number> {
    let removed = 0;
    for (const [id, record] of this.byId) {
      if (record.userId !== userId) continue;
      this.byId.delete(id);
      this.idByHash.delete(record.hash);
      removed++;
    }
    return removed;
  }

  async touch(id: string, at: number): Promise<void> {
    const record = this.byId.get(id);
    if (record !== undefined && (record.lastUsedAt === undefined || record.lastUsedAt < at)) {
      record.lastUsedAt = at;
    }
  }
}
