// What the bus tests watch a bus with: the topics it delivers here, whether it is up, and a bounded poll.
import type { InvalidationBus } from '../../../runtime/stores/cache/bus.js';

/** Every topic `on` delivers to this process from now on. */
export function heard(on: InvalidationBus): string[] {
  const topics: string[] = [];
  on.subscribe((topic) => topics.push(topic));
  return topics;
}

/** Polls `condition` every few ms; fails after `ms`. */
export async function until(condition: () => boolean, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const isUp = (on: InvalidationBus): boolean => on.isUp(Date.now());
