// The bus of a single process (an embedded PGlite database, which one process owns): every message is
// delivered at once, synchronously, and it is never down.
import type { InvalidationBus } from './bus.js';

export function localBus(): InvalidationBus {
  const listeners = new Set<(topic: string) => void>();
  return {
    epoch: 0,
    isUp: () => true,
    publish(topic) {
      for (const listener of [...listeners]) listener(topic);
      return Promise.resolve();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => Promise.resolve(),
  };
}
