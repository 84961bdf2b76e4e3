import { describe, expect, test } from 'vitest';
import { uuidv7 } from '../../runtime/http/uuid.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function timestampOf(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

describe('uuidv7 request ids', () => {
  test('have the version 7 layout with the RFC 9562 variant', () => {
    for (let i = 0; i < 1000; i++) expect(uuidv7()).toMatch(V7);
  });

  test('carry the creation time in their first 48 bits', () => {
    const before = Date.now();
    const id = uuidv7();
    expect(timestampOf(id)).toBeGreaterThanOrEqual(before);
    expect(timestampOf(id)).toBeLessThanOrEqual(Date.now());
    expect(timestampOf(uuidv7(0x0123456789ab))).toBe(0x0123456789ab);
  });

  test('sort by creation time across milliseconds', () => {
    const ids = [uuidv7(1_700_000_000_000), uuidv7(1_700_000_000_001), uuidv7(1_800_000_000_000)];
    expect([...ids].sort()).toEqual(ids);
  });

  test('stay unique across pool refills (more than 64 KiB of random bits)', () => {
    const ids = new Set<string>();
    const count = 20_000; // 10 random bytes each: three refills of the 64 KiB pool
    for (let i = 0; i < count; i++) ids.add(uuidv7(1_700_000_000_000));
    expect(ids.size).toBe(count);
  });
});
