// The in-memory MFA store, for `stores.database: memory`: this process's map, lost on restart. Every
// transition is checked and written inside one synchronous method body (no await between the check and the
// write), so concurrent calls cannot interleave; several processes need the SQL store. Records are never
// evicted (an evicted record would switch a user's second factor off), so the map is not bounded: one record
// per enrolled user, like the users themselves. Callers get copies: a returned record never aliases the stored
// one, and stored arrays are never the caller's.
import { checkScanLimit, type MfaRecord, type MfaStore } from './store.js';

function copyRecord(record: MfaRecord): MfaRecord {
  return { ...record, recoveryHashes: [...record.recoveryHashes] };
}

/**
 * A code unit ranked as its code point would be: surrogates (0xD800–0xDFFF, the halves of code points above
 * 0xFFFF) move above 0xE000–0xFFFF. At the first differing code unit, this gives UTF-8 byte order, which is
 * PostgreSQL's "C" collation and so the SQL store's order.
 */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit < 0xe000) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

function compareCodePoints(a: string, b: string): number {
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

export class MemoryMfaStore implements MfaStore {
  private readonly records = new Map<string, MfaRecord>();

  async get(userId: string): Promise<MfaRecord | undefined> {
    const record = this.records.get(userId);
    return record === undefined ? undefined : copyRecord(record);
  }

  async enroll(userId: string, secret: string, now: number): Promise<boolean> {
    if (this.records.get(userId)?.state === 'enabled') return false;
    this.records.set(userId, {
      userId,
      secret,
      state: 'pending',
      recoveryHashes: [],
      lastStep: undefined,
      createdAt: now,
      enabledAt: undefined,
    });
    return true;
  }

  async activate(
    userId: string,
    secret: string,
    recoveryHashes: readonly string[],
    step: number,
    now: number,
  ): Promise<boolean> {
    const record = this.records.get(userId);
    if (record?.state !== 'pending' || record.secret !== secret) return false;
    record.state = 'enabled';
    record.recoveryHashes = [...recoveryHashes];
    record.lastStep = step;
    record.enabledAt = now;
    return true;
  }

  async useStep(userId: string, step: number, only?: { enabledAt: number }): Promise<boolean> {
    const record = this.records.get(userId);
    if (record?.state !== 'enabled') return false;
    if (only !== undefined && record.enabledAt !== only.enabledAt) return false;
    if (record.lastStep !== undefined && step <= record.lastStep) return false;
    record.lastStep = step;
    return true;
  }

  async useRecoveryCode(userId: string, hash: string): Promise<boolean> {
    const record = this.records.get(userId);
    if (record?.state !== 'enabled' || !record.recoveryHashes.includes(hash)) return false;
    record.recoveryHashes = record.recoveryHashes.filter((held) => held !== hash);
    return true;
  }

  async remove(userId: string, only?: { enabledAt: number }): Promise<boolean> {
    const record = this.records.get(userId);
    if (record === undefined) return false;
    if (only !== undefined && record.enabledAt !== only.enabledAt) return false;
    return this.records.delete(userId);
  }

  async replaceSecret(userId: string, expected: string, next: string): Promise<boolean> {
    const record = this.records.get(userId);
    if (record?.secret !== expected) return false;
    record.secret = next;
    return true;
  }

  async recordsAfter(after: string | undefined, limit: number): Promise<MfaRecord[]> {
    checkScanLimit('MemoryMfaStore.recordsAfter()', limit);
    const ids = [...this.records.keys()];
    const rest = after === undefined ? ids : ids.filter((id) => compareCodePoints(id, after) > 0);
    return rest
      .sort(compareCodePoints)
      .slice(0, limit)
      .map((id) => copyRecord(this.records.get(id)!));
  }
}
