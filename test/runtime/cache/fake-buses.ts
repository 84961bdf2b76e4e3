// Test doubles for the cached stores: two buses linked like two processes on one backend (every publish
// reaches both, the publisher's listeners first), a bus whose backend is down, and a spy counting the calls
// that reach a store.
import { errors } from '../../../generated/modules/errors.js';
import type { InvalidationBus } from '../../../runtime/stores/cache/bus.js';

function listeningBus(deliver: (topic: string) => void): InvalidationBus & { hear(topic: string): void } {
  const listeners = new Set<(topic: string) => void>();
  return {
    epoch: 0,
    isUp: () => true,
    hear(topic) {
      for (const listener of [...listeners]) listener(topic);
    },
    publish(topic) {
      deliver(topic);
      return Promise.resolve();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => Promise.resolve(),
  };
}

/** The buses of two processes: a topic published on either is heard on both, the publisher first. */
export function linkedBuses(): [InvalidationBus, InvalidationBus] {
  const a = listeningBus((topic) => {
    a.hear(topic);
    b.hear(topic);
  });
  const b = listeningBus((topic) => {
    b.hear(topic);
    a.hear(topic);
  });
  return [a, b];
}

/** A bus that hears this process's topics but cannot send them: publish rejects as the real ones do. */
export function unreachableBus(): InvalidationBus {
  const bus = listeningBus((topic) => bus.hear(topic));
  return {
    ...bus,
    publish(topic) {
      bus.hear(topic);
      return Promise.reject(errors.STORE_UNAVAILABLE({ message: 'the invalidation bus is down' }));
    },
  };
}

/** `store` with every method call counted by name (methods it lacks stay absent). */
export function counted<T extends object>(store: T): { store: T; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const spy = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return (value as (...params: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: spy, calls };
}
