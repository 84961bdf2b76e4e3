// What every invalidation bus between processes must do, run by each bus's own test file against its real
// server: a publish reaches the other processes in order and the writer's own listeners at once, and it
// resolves only once every other live process has applied it, from the first write of a process that has just
// started (its hello makes the others answer at once).
import { expect, it } from 'vitest';
import type { InvalidationBus } from '../../../runtime/stores/cache/bus.js';
import { heard, isUp, until } from './bus-watch.js';

/** Opens one process's bus on `channel`; the caller closes it after the test. */
export type OpenProcessBus = (channel: string) => Promise<InvalidationBus>;

export function busDeliveryContract(open: OpenProcessBus, newChannel: () => string): void {
  it('delivers a publish to the other process, and to its own listeners synchronously and once', async () => {
    const channel = newChannel();
    const a = await open(channel);
    const b = await open(channel);
    await until(() => isUp(a) && isUp(b));
    const onA = heard(a);
    const onB = heard(b);

    const published = a.publish('user:1');
    // The writer's own cache drops the entry before the publish even left the process.
    expect(onA).toEqual(['user:1']);
    await published;
    await until(() => onB.includes('user:1'));

    // One channel is delivered in order: once A hears B's later message, its own has come back too. The
    // topic carries quotes and spaces, as membership topics do.
    await b.publish('member:["t 1","u 1"]');
    await until(() => onA.includes('member:["t 1","u 1"]'));
    expect(onA).toEqual(['user:1', 'member:["t 1","u 1"]']);
    expect(onB).toEqual(['user:1', 'member:["t 1","u 1"]']);
  });

  it('resolves a publish only once every other live process has applied it, from the first write of a new process', async () => {
    const channel = newChannel();
    const a = await open(channel);
    const b = await open(channel);
    await until(() => isUp(a) && isUp(b));
    // C starts last: its hello makes A and B answer at once, so it knows whom to wait for a beat sooner.
    const c = await open(channel);
    await until(() => isUp(c));
    const onA = heard(a);
    const onB = heard(b);
    for (let n = 0; n < 20; n++) {
      await c.publish(`session:${n}`);
      // No wait: when the writer may answer its client, every other process has dropped the entry.
      expect(onA.at(-1)).toBe(`session:${n}`);
      expect(onB.at(-1)).toBe(`session:${n}`);
    }
  });
}
