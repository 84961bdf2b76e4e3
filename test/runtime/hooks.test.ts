// The app's hook bus: handlers run in registration order, awaited one after another, and unsubscribing
// while an event is being delivered does not make the bus skip anyone.
import { describe, expect, it } from 'vitest';
import { Hooks } from '../../runtime/app/hooks.js';

describe('Hooks', () => {
  it('runs every handler registered when the event was emitted, even one after a handler that unsubscribed itself', async () => {
    const hooks = new Hooks();
    const ran: string[] = [];
    const off = hooks.on('app:closing', () => {
      ran.push('once');
      off();
    });
    hooks.on('app:closing', async () => {
      await Promise.resolve();
      ran.push('second');
    });
    hooks.on('app:closing', () => void ran.push('third'));
    await hooks.emit('app:closing', { app: undefined });
    await hooks.emit('app:closing', { app: undefined });
    expect(ran).toEqual(['once', 'second', 'third', 'second', 'third']);
  });
});
