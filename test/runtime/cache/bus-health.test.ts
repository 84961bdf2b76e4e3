// The rules both invalidation buses share (bus-health.ts), on two processes joined by a transport the test
// shapes: a process whose messages arrive late is down, however regularly they arrive; a process that says
// its bus is down is not waited for; a process that just subscribed waits for the others' answers to its
// hello before its first write.
import { afterEach, describe, expect, it } from 'vitest';
import { BusHealth, busSettings } from '../../../runtime/stores/cache/bus-health.js';
import type { InvalidationBus } from '../../../runtime/stores/cache/bus.js';
import { heard, until } from './bus-watch.js';

const HEARTBEAT_MS = 100;
const settings = busSettings({ heartbeatMs: HEARTBEAT_MS }, 'test', 'test-channel');
const opened: InvalidationBus[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((bus) => bus.close()));
});

/** Processes on one channel; `delayTo(n)` is how late a message reaches process n, or undefined for never. */
function processes(count: number, delayTo: (n: number) => number | undefined) {
  const nodes: BusHealth[] = [];
  const send = (message: string) => {
    nodes.forEach((node, n) => {
      const delay = delayTo(n);
      if (delay === undefined) return;
      setTimeout(() => node.received(message), delay);
    });
    return Promise.resolve();
  };
  for (let n = 0; n < count; n++) nodes.push(new BusHealth(send, settings));
  const buses = nodes.map((node) => node.asBus(() => Promise.resolve()));
  opened.push(...buses);
  return { nodes, buses };
}

function join(node: BusHealth): void {
  node.start();
  node.listeningStarted();
}

describe('bus health', () => {
  it('counts a process whose own beats come back more than two beats late as down, and does not wait for it', async () => {
    const lag = 2.5 * HEARTBEAT_MS;
    const { nodes, buses } = processes(2, (n) => (n === 1 ? lag : 0));
    const [a, b] = buses as [InvalidationBus, InvalidationBus];
    nodes.forEach(join);
    await until(() => a.isUp(Date.now()));
    // B hears every beat, regularly, but each one 2.5 beats after it was sent: never up.
    await new Promise((resolve) => setTimeout(resolve, 4 * HEARTBEAT_MS));
    expect(b.isUp(Date.now())).toBe(false);
    // B's beats say it is down, so A's write does not wait for B's late acknowledgement.
    const started = Date.now();
    await a.publish('session:x');
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS);
  });

  it('does not wait for a process that says its bus is down', async () => {
    // B's subscription is silently dead: it hears nothing, while its own beats (sent on another connection) reach A.
    const { nodes, buses } = processes(2, (n) => (n === 1 ? undefined : 0));
    const [a] = buses as [InvalidationBus];
    nodes.forEach(join);
    await until(() => a.isUp(Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 3 * HEARTBEAT_MS)); // B has said "down" since
    const started = Date.now();
    await a.publish('user:1');
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS);
  });

  it('a reconnection starts a greeting of its own: the old one ending does not release its writes', async () => {
    // Nothing comes back (the hellos are lost): each greeting ends only when its own beat has passed.
    const { nodes, buses } = processes(1, () => undefined);
    const [node] = nodes as [BusHealth];
    const [bus] = buses as [InvalidationBus];
    node.start();
    node.listeningStarted();
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS / 2));
    node.listeningStopped();
    node.listeningStarted(); // reconnected: a new hello, a new beat to wait
    let published = false;
    void bus.publish('user:1').then(() => (published = true));
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 0.75)); // the first greeting's end
    expect(published).toBe(false);
    await until(() => published, HEARTBEAT_MS);
  });

  it("holds a new process's first write until the others answered its hello", async () => {
    let bListens = false; // B hears nothing before it subscribes: it knows of A only by A's answer
    const { nodes, buses } = processes(2, (n) => (n === 0 || bListens ? 5 : undefined));
    const [a, b] = buses as [InvalidationBus, InvalidationBus];
    const [first, second] = nodes as [BusHealth, BusHealth];
    join(first);
    await until(() => a.isUp(Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS)); // A's beats go unheard by B
    const onA = heard(a);
    bListens = true;
    join(second); // B starts: its first write comes at once
    await b.publish('session:1');
    expect(onA).toEqual(['session:1']);
  });
});
