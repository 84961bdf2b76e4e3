// Per-tenant quota under concurrency (reservations before bytes), and the buffered path with checkQuota.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buf, setup, trackedSource } from './helpers.js';

const SIZE = 1000;

describe('quota under concurrency', () => {
  // The buffered path reads the tenant's usage only to bound what it holds in memory; the reservation after the
  // read is what decides, so racing buffered uploads cannot both take the last room either.
  it.each([
    ['with contentLength', true, false],
    ['without contentLength', false, false],
    ['buffered for checkQuota, without contentLength', false, true],
  ])(
    '20 parallel uploads with room for 10 (%s): exactly 10 stored, 10 × 402',
    async (_, declare, buffered) => {
      const { service, store, disk } = setup({
        maxTotalBytes: 10 * SIZE,
        ...(buffered ? { checkQuota: () => undefined } : {}),
      });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (__, i) =>
          service.upload(Readable.from([Buffer.alloc(SIZE, i)]), {
            name: `f${i}`,
            ...(declare ? { contentLength: SIZE } : {}),
          }),
        ),
      );
      const stored = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected');
      expect(stored).toHaveLength(10);
      expect(refused).toHaveLength(10);
      for (const r of refused) expect(r.reason).toMatchObject({ status: 402, code: 'FILE_QUOTA_EXCEEDED' });
      expect(await store.usedBytes('@single', Date.now())).toBe(10 * SIZE);
      expect(disk.usedBytes()).toBe(10 * SIZE);
      expect(await store.list('@single')).toHaveLength(10);
    },
  );

  it('keeps tenants apart: one tenant full does not stop another', async () => {
    const { service } = setup({ maxTotalBytes: SIZE });
    await service.upload(Buffer.alloc(SIZE), { name: 'a', tenantId: 't1' });
    await expect(service.upload(Buffer.alloc(1), { name: 'b', tenantId: 't1' })).rejects.toMatchObject({
      code: 'FILE_QUOTA_EXCEEDED',
    });
    await service.upload(Buffer.alloc(SIZE), { name: 'c', tenantId: 't2' });
  });

  it('refuses a declared contentLength that does not fit before reading', async () => {
    const { service, disk } = setup({ maxTotalBytes: SIZE });
    const { source, state } = trackedSource([Buffer.alloc(SIZE + 1)]);
    await expect(service.upload(source, { name: 'a', contentLength: SIZE + 1 })).rejects.toMatchObject({
      code: 'FILE_QUOTA_EXCEEDED',
    });
    expect(state.pulled).toBe(0);
    expect(state.cancelled).toBe(true);
    expect(disk.usedBytes()).toBe(0);
  });

  it('refuses a stream whose next step does not fit, cancelling it with nothing written', async () => {
    const { service, disk, store } = setup({ maxTotalBytes: 2500 });
    const { source, state } = trackedSource([
      Buffer.alloc(1000),
      Buffer.alloc(1000),
      Buffer.alloc(1000),
      Buffer.alloc(1000),
    ]);
    await expect(service.upload(source, { name: 'a' })).rejects.toMatchObject({
      code: 'FILE_QUOTA_EXCEEDED',
    });
    expect(state.pulled).toBe(3);
    expect(state.cancelled).toBe(true);
    expect(disk.usedBytes()).toBe(0);
    // Its reservation was released: the whole quota is free again.
    expect(await store.usedBytes('@single', Date.now())).toBe(0);
    await service.upload(Buffer.alloc(2500), { name: 'fits' });
  });

  it('releases the reservation of a failed upload', async () => {
    const { service, store } = setup({ maxTotalBytes: SIZE, validate: { sniff: true } });
    await expect(
      service.upload(Readable.from([Buffer.from('<html></html>')]), {
        name: 'x',
        contentType: 'image/png',
        contentLength: 13,
      }),
    ).rejects.toMatchObject({ code: 'FILE_TYPE_MISMATCH' });
    expect(await store.usedBytes('@single', Date.now())).toBe(0);
  });
});

describe('buffered path', () => {
  it('calls checkQuota with the exact size before writing; a throw refuses and propagates', async () => {
    const calls: [string, number][] = [];
    const refusal = new Error('over the plan');
    const { service, disk, store } = setup({
      maxTotalBytes: 10_000,
      checkQuota: (tenantId, size) => {
        calls.push([tenantId, size]);
        if (size > 5) throw refusal;
      },
    });
    const ok = await service.upload(Readable.from([buf('ab'), buf('c')]), { name: 'a', tenantId: 't' });
    expect(ok.size).toBe(3);
    const { source, state } = trackedSource([buf('abcd'), buf('efgh')]);
    await expect(service.upload(source, { name: 'b', tenantId: 't' })).rejects.toBe(refusal);
    expect(calls).toEqual([
      ['t', 3],
      ['t', 8],
    ]);
    expect(state.pulled).toBe(2);
    expect(disk.usedBytes()).toBe(3);
    expect(await store.usedBytes('t', Date.now())).toBe(3);
  });

  it('checkQuota runs after the built-in quota', async () => {
    let called = false;
    const { service } = setup({ maxTotalBytes: 4, checkQuota: () => void (called = true) });
    await expect(service.upload(buf('12345'), { name: 'a' })).rejects.toMatchObject({
      code: 'FILE_QUOTA_EXCEEDED',
    });
    expect(called).toBe(false);
  });

  it('with an unbounded maxSize and no contentLength, reads the whole content within what the quota leaves', async () => {
    const { service, disk } = setup({ maxTotalBytes: 3000, validate: { maxSize: Infinity } });
    await service.upload(Readable.from([Buffer.alloc(1000), Buffer.alloc(1000)]), { name: 'a' });
    const { source, state } = trackedSource([Buffer.alloc(600), Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(service.upload(source, { name: 'b' })).rejects.toMatchObject({
      code: 'FILE_QUOTA_EXCEEDED',
    });
    expect(state.pulled).toBe(2);
    expect(state.cancelled).toBe(true);
    expect(disk.usedBytes()).toBe(2000);
  });

  it('still applies maxSize on the buffered path', async () => {
    const { service, disk } = setup({ validate: { maxSize: 5 }, checkQuota: () => undefined });
    await expect(
      service.upload(Readable.from([buf('123'), buf('456')]), { name: 'a' }),
    ).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    expect(disk.usedBytes()).toBe(0);
  });

  it('keeps a stalled upload covered past the reservation lifetime (fake clock)', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { service, store } = setup({ maxTotalBytes: 10 * SIZE, clock: () => now });
    const seen: number[] = [];
    async function* slow() {
      yield Buffer.alloc(SIZE);
      now += 2 * 3_600_000;
      yield Buffer.alloc(SIZE);
      seen.push(await store.usedBytes('@single', now));
      yield Buffer.alloc(SIZE);
    }
    for (const contentLength of [3 * SIZE, undefined]) {
      seen.length = 0;
      const file = await service.upload(slow(), { name: 'slow', contentLength });
      expect(seen[0]).toBeGreaterThanOrEqual(2 * SIZE + (contentLength === undefined ? 0 : SIZE));
      await service.delete(file.id);
    }
  });
});

describe('a reservation that expired during a stall', () => {
  it.each([
    ['streamed, size declared', {}],
    ['buffered for checkQuota', { checkQuota: () => undefined }],
  ])(
    'is not committed on room another upload took meanwhile (%s): refused, nothing stored over the quota',
    async (_, extra) => {
      let now = Date.UTC(2026, 0, 1);
      const { service, store, disk } = setup({ maxTotalBytes: 10 * SIZE, clock: () => now, ...extra });
      let resume!: () => void;
      const resumed = new Promise<void>((resolve) => (resume = resolve));
      let started!: () => void;
      const reading = new Promise<void>((resolve) => (started = resolve));
      async function* stalled() {
        yield Buffer.alloc(SIZE);
        started();
        await resumed; // the last bytes arrive after the reservation's hour has passed
        yield Buffer.alloc(8 * SIZE);
      }
      const slow = service.upload(stalled(), { name: 'slow', contentLength: 9 * SIZE });
      await reading;
      now += 3_600_000 + 1;
      // The slow upload's room is free again by the store's clock: another upload takes it.
      await service.upload(Buffer.alloc(9 * SIZE), { name: 'quick' });
      resume();
      await expect(slow).rejects.toMatchObject({ status: 402, code: 'FILE_QUOTA_EXCEEDED' });
      expect(await store.usedBytes('@single', now)).toBe(9 * SIZE);
      expect((await store.list('@single')).map((file) => file.name)).toEqual(['quick']);
      expect(disk.usedBytes()).toBe(9 * SIZE);
    },
  );
});

describe('room held by uploads in flight', () => {
  it('many small streams in flight under a tight quota all fit: none holds room it has not shown it needs', async () => {
    const MIB = 1024 * 1024;
    const { service, store } = setup({ maxTotalBytes: 3 * MIB });
    // Each stream delivers one small chunk and stalls until all four have started, so their reservations
    // are all held at once.
    let release!: () => void;
    const started: Promise<void>[] = [];
    const gate = new Promise<void>((resolve) => (release = resolve));
    const streams = Array.from({ length: 4 }, (_, index) => {
      let began!: () => void;
      started.push(new Promise<void>((resolve) => (began = resolve)));
      return (async function* () {
        yield Buffer.alloc(300, index);
        began();
        await gate;
        yield Buffer.alloc(300, index);
      })();
    });
    const uploads = streams.map((stream, index) => service.upload(stream, { name: `small-${index}` }));
    await Promise.all(started);
    expect(await store.usedBytes('@single', Date.now())).toBeLessThan(MIB);
    release();
    const stored = await Promise.all(uploads);
    expect(stored.map((file) => file.size)).toEqual([600, 600, 600, 600]);
    expect(await store.usedBytes('@single', Date.now())).toBe(2400);
  });
});

describe("the caller's per-file cap (maxBytes)", () => {
  it('refuses a declared length over it before reading or reserving anything', async () => {
    const { service, store, disk } = setup({ maxTotalBytes: 10 * SIZE });
    const { source, state } = trackedSource([Buffer.alloc(SIZE)]);
    await expect(
      service.upload(source, { name: 'a', contentLength: 5 * SIZE, maxBytes: SIZE }),
    ).rejects.toMatchObject({ status: 413, code: 'FILE_TOO_LARGE', details: { limit: 'maxBytes' } });
    expect(state.pulled).toBe(0);
    expect(await store.usedBytes('@single', Date.now())).toBe(0);
    expect(disk.usedBytes()).toBe(0);
  });

  it('stops a stream past it, keeps exactly maxBytes, and never raises the service cap', async () => {
    const { service, store } = setup({ maxTotalBytes: 10 * SIZE, validate: { maxSize: 2 * SIZE } });
    await expect(
      service.upload(Readable.from([Buffer.alloc(SIZE + 1)]), { name: 'a', maxBytes: SIZE }),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    expect(await store.usedBytes('@single', Date.now())).toBe(0);
    const exact = await service.upload(Readable.from([Buffer.alloc(SIZE)]), { name: 'b', maxBytes: SIZE });
    expect(exact.size).toBe(SIZE);
    await expect(
      service.upload(Readable.from([Buffer.alloc(2 * SIZE + 1)]), { name: 'c', maxBytes: 5 * SIZE }),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxBytes %s as a programming error', async (maxBytes) => {
    const { service } = setup();
    await expect(
      service.upload(Buffer.from('x'), { name: 'a', maxBytes: maxBytes as number }),
    ).rejects.toMatchObject({ code: 'OPTION_INVALID' });
  });
});
