// What the Redis and PostgreSQL invalidation buses share: the listeners, the epoch, and whether the bus can be
// trusted. A bus is up only while this process hears its OWN heartbeat (sent every heartbeatMs over the same
// path as every message, so hearing it proves that path end to end); it goes down at once when its listening
// connection closes, and within a heartbeat tick when the heartbeats silently stop arriving. Every change of
// state is a new epoch and tells every listener '*': messages may have been missed in between. A publish the
// backend refused is retried in the background for `retryForMs`, after which every cache has dropped the
// entry by age anyway.
// A publish resolves once every other live process (one whose heartbeat was heard within two beats) has
// acknowledged applying it, or two beats have passed: the backend's reply alone does not prove the message
// reached the others first (Redis may answer the publisher before it writes to the subscribers), and the
// writer answers its client only after this, so a request the client sends next finds every cache dropped.
// A process that (re)subscribes says hello and every other process answers with a heartbeat; its writes wait
// until its own hello came back and the answers had time to (twice that round trip, at most one beat), so its
// first write already knows whom to wait for. A heartbeat carries when it was sent and whether its sender's
// bus is up: a process is up only while its own heartbeats come back at most two beats late (however regular
// their arrival), and a process that is down is not waited for (it trusts its cache for the fallback window
// only, so waiting for it protects nothing).
// Wire messages: `<nonce> h <sentAt> <up 1|0>` (heartbeat), `<nonce> H <sentAt> <up>` (hello),
// `<nonce> i <seq> <topic>` (invalidation), `<nonce> a <origin> <seq>` (ack).
import { randomBytes } from 'node:crypto';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { reconnectDelay } from '../redis/client.js';
import { isStoreUnavailable } from '../sql/unavailable.js';
import { EVERYTHING, type InvalidationBus } from './bus.js';

export const DEFAULT_BUS_HEARTBEAT_MS = 1000;
export const DEFAULT_BUS_RETRY_FOR_MS = 30_000;
const HEARTBEAT = 'h';
/** The first heartbeat after (re)subscribing: every other process answers with a heartbeat of its own. */
const HELLO = 'H';
const INVALIDATION = 'i';
const ACK = 'a';

/** What both buses take. */
export interface BusOptions {
  /** The Redis channel or PostgreSQL LISTEN channel every process of the service shares. */
  channel?: string;
  /** How often this process checks it still hears itself, in ms; down after two missed beats. Default 1000. */
  heartbeatMs?: number;
  /** How long a publish the backend refused is retried in the background, in ms. Default 30 000. */
  retryForMs?: number;
}

export interface BusSettings {
  channel: string;
  heartbeatMs: number;
  retryForMs: number;
}

const BUS_OPTIONS = optionKeys<BusOptions>({ channel: true, heartbeatMs: true, retryForMs: true });

/** `options` checked under `owner`'s name, defaults filled in. */
export function busSettings(options: unknown, owner: string, defaultChannel: string): BusSettings {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidOptions(owner);
  rejectUnknownOptions(options, BUS_OPTIONS, owner);
  const given = options as BusOptions;
  const channel = given.channel ?? defaultChannel;
  if (typeof channel !== 'string' || channel === '')
    throw invalidOption(owner, 'channel', 'a non-empty string');
  return {
    channel,
    heartbeatMs: positiveWholeNumber(given.heartbeatMs, DEFAULT_BUS_HEARTBEAT_MS, owner, 'heartbeatMs'),
    retryForMs: positiveWholeNumber(given.retryForMs, DEFAULT_BUS_RETRY_FOR_MS, owner, 'retryForMs'),
  };
}

/** Sends one wire message to every process; rejects with STORE_UNAVAILABLE when the backend cannot take it. */
export type SendMessage = (message: string) => Promise<void>;

interface Retry {
  /** Past this, the topic is given up on. */
  deadline: number;
  attempt: number;
  timer: NodeJS.Timeout | undefined;
  /** A publish of the topic failed after the attempt under way was sent: that attempt does not cover it. */
  again: boolean;
}

/** A publish waiting for the other processes' acknowledgements. */
interface PendingAck {
  waiting: Set<string>;
  done: () => void;
  timer: NodeJS.Timeout;
}

export class BusHealth {
  /** Tells this process's own messages apart on the wire. */
  readonly nonce = randomBytes(12).toString('base64url');
  private readonly listeners = new Set<(topic: string) => void>();
  private readonly retries = new Map<string, Retry>();
  /** The other processes on the channel: nonce → when their heartbeat was last heard. */
  private readonly peers = new Map<string, number>();
  private readonly pending = new Map<number, PendingAck>();
  private sequence = 0;
  /** Writes wait for this after a (re)subscription: the answers to our hello, telling us the peers. */
  private greeting: Promise<void> | undefined;
  private endGreeting: (() => void) | undefined;
  private epoch = 0;
  /** Our own heartbeat was heard since the listening connection last came up (and not found stale). */
  private up = false;
  /** The listening connection is subscribed: heartbeats are worth sending. */
  private listening = false;
  private lastHeard = Number.NEGATIVE_INFINITY;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly send: SendMessage,
    private readonly settings: BusSettings,
    /** Called on every heartbeat tick: the transport may retry a subscription that failed. */
    private readonly onTick: () => void = () => undefined,
  ) {}

  /** Starts the heartbeat; the timer never keeps the process alive. */
  start(): void {
    if (this.closed || this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(() => this.tick(), this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  /** The listening connection is subscribed (again): prove the path with a heartbeat now. */
  listeningStarted(): void {
    if (this.closed) return;
    this.listening = true;
    this.startGreeting();
    this.sendHeartbeat(HELLO);
  }

  /** The listening connection is gone: down at once. */
  listeningStopped(): void {
    this.listening = false;
    this.finishGreeting();
    this.goDown();
  }

  /** A wire message from the backend. */
  received(message: string): void {
    if (this.closed) return;
    const [sender, kind, first, second] = splitWire(message);
    const beat = kind === HEARTBEAT || kind === HELLO;
    if (sender === undefined || (first === undefined && !beat)) return;
    const own = sender === this.nonce;
    if (beat) {
      if (own) this.heardOwn(Number(first), kind === HELLO);
      else if (kind === HELLO || second === '1') {
        // A hello counts at once: its sender is about to be up, and says so in its next beat.
        this.peers.set(sender, Date.now());
        if (kind === HELLO) this.sendHeartbeat();
      } else this.peerDown(sender);
    } else if (kind === INVALIDATION && !own && second !== undefined) {
      // Our own listeners ran when we published; another process's message is applied, then acknowledged.
      this.dispatch(second);
      this.send(`${this.nonce} ${ACK} ${sender} ${first}`).catch(() => undefined);
    } else if (kind === ACK && first === this.nonce && second !== undefined) {
      this.acknowledged(Number(second), sender);
    }
  }

  isUp(now: number): boolean {
    return this.up && now - this.lastHeard <= 2 * this.settings.heartbeatMs;
  }

  /** The bus over this health: `closeTransport` ends the listening connection, once. */
  asBus(closeTransport: () => Promise<void>): InvalidationBus {
    let closing: Promise<void> | undefined;
    const epoch = () => this.epoch;
    return {
      get epoch() {
        return epoch();
      },
      isUp: (now) => this.isUp(now),
      publish: (topic) => this.publish(topic),
      subscribe: (listener) => this.subscribe(listener),
      close: () => {
        closing ??= (async () => {
          this.close();
          await closeTransport();
        })();
        return closing;
      },
    };
  }

  private async publish(topic: string): Promise<void> {
    this.dispatch(topic);
    if (this.greeting !== undefined) await this.greeting;
    const seq = ++this.sequence;
    // Registered before sending: an acknowledgement may come back before the backend's reply does.
    const acknowledged = this.awaitAcks(seq);
    try {
      await this.send(this.wire(seq, topic));
    } catch (error) {
      this.settle(seq);
      if (isStoreUnavailable(error)) this.retryInBackground(topic);
      throw error;
    }
    await acknowledged;
  }

  /** Resolves when every live peer acknowledged `seq`, or after two beats (a peer that silent distrusts itself). */
  private awaitAcks(seq: number): Promise<void> {
    const waiting = this.livePeers();
    if (waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(seq), 2 * this.settings.heartbeatMs);
      timer.unref();
      this.pending.set(seq, { waiting, done: resolve, timer });
    });
  }

  private acknowledged(seq: number, peer: string): void {
    const pending = this.pending.get(seq);
    if (pending === undefined) return;
    pending.waiting.delete(peer);
    if (pending.waiting.size === 0) this.settle(seq);
  }

  private settle(seq: number): void {
    const pending = this.pending.get(seq);
    if (pending === undefined) return;
    this.pending.delete(seq);
    clearTimeout(pending.timer);
    pending.done();
  }

  /** A peer whose bus is down: not waited for, by the publishes under way either. */
  private peerDown(peer: string): void {
    this.peers.delete(peer);
    for (const seq of [...this.pending.keys()]) this.acknowledged(seq, peer);
  }

  private startGreeting(): void {
    this.finishGreeting();
    this.greeting = new Promise((resolve) => (this.endGreeting = resolve));
    // Never longer than a beat: a hello that does not come back must not hold writes up.
    this.finishGreetingAfter(this.settings.heartbeatMs);
  }

  /** Ends this greeting after `ms`, unless a newer one (a reconnection meanwhile) has replaced it. */
  private finishGreetingAfter(ms: number): void {
    const end = this.endGreeting;
    setTimeout(() => {
      if (this.endGreeting === end) this.finishGreeting();
    }, ms).unref();
  }

  private finishGreeting(): void {
    const end = this.endGreeting;
    this.greeting = undefined;
    this.endGreeting = undefined;
    end?.();
  }

  /** The peers heard within two beats; the others are forgotten. */
  private livePeers(): Set<string> {
    const since = Date.now() - 2 * this.settings.heartbeatMs;
    const live = new Set<string>();
    for (const [peer, heardAt] of this.peers) {
      if (heardAt >= since) live.add(peer);
      else this.peers.delete(peer);
    }
    return live;
  }

  private subscribe(listener: (topic: string) => void): () => void {
    // One function may subscribe twice: each subscription is its own entry.
    const entry = (topic: string) => listener(topic);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  private close(): void {
    this.closed = true;
    this.listening = false;
    this.up = false;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const retry of this.retries.values()) clearTimeout(retry.timer);
    this.retries.clear();
    for (const seq of [...this.pending.keys()]) this.settle(seq);
    this.listeners.clear();
  }

  private wire(seq: number, topic: string): string {
    return `${this.nonce} ${INVALIDATION} ${seq} ${topic}`;
  }

  private dispatch(topic: string): void {
    for (const listener of [...this.listeners]) listener(topic);
  }

  private newEpoch(): void {
    this.epoch++;
    this.dispatch(EVERYTHING);
  }

  /** Our own beat came back: up while it comes back at most two beats after it was sent. */
  private heardOwn(sentAt: number, hello: boolean): void {
    const now = Date.now();
    this.lastHeard = Number.isFinite(sentAt) ? Math.min(sentAt, now) : now;
    if (hello && this.endGreeting !== undefined) {
      // The others answered our hello when they heard it, as we did: give their answers the same trip back.
      const roundTrip = Math.max(0, now - this.lastHeard);
      const grace = Math.min(this.settings.heartbeatMs, 2 * roundTrip + 5);
      this.finishGreetingAfter(grace);
    }
    // A beat that came back too late proves the path works but not that it is in time: stay down.
    if (this.up || !this.listening || now - this.lastHeard > 2 * this.settings.heartbeatMs) return;
    this.up = true;
    this.newEpoch();
    this.sendHeartbeat(); // the others count us from now on, not from our next beat
  }

  private goDown(): void {
    if (!this.up) return;
    this.up = false;
    this.newEpoch();
  }

  private tick(): void {
    // Silent failures (a connection that hangs, heartbeats that stop arriving) never close anything.
    if (this.up && !this.isUp(Date.now())) this.goDown();
    this.livePeers(); // forgets the peers gone quiet
    this.onTick();
    this.sendHeartbeat();
  }

  private sendHeartbeat(kind: typeof HEARTBEAT | typeof HELLO = HEARTBEAT): void {
    // A lost heartbeat is the signal itself: nothing to retry or report.
    const now = Date.now();
    const up = this.isUp(now) ? '1' : '0';
    if (this.listening) this.send(`${this.nonce} ${kind} ${now} ${up}`).catch(() => undefined);
  }

  private retryInBackground(topic: string): void {
    if (this.closed) return;
    const deadline = Date.now() + this.settings.retryForMs;
    const pending = this.retries.get(topic);
    if (pending !== undefined) {
      pending.deadline = Math.max(pending.deadline, deadline);
      pending.again = true;
      return;
    }
    const retry: Retry = { deadline, attempt: 0, timer: undefined, again: false };
    this.retries.set(topic, retry);
    this.scheduleRetry(topic, retry);
  }

  private scheduleRetry(topic: string, retry: Retry): void {
    retry.attempt++;
    const delay = reconnectDelay(retry.attempt);
    if (Date.now() + delay > retry.deadline) {
      this.retries.delete(topic);
      return;
    }
    retry.timer = setTimeout(() => void this.retryOnce(topic, retry), delay);
    retry.timer.unref();
  }

  private async retryOnce(topic: string, retry: Retry): Promise<void> {
    retry.timer = undefined;
    retry.again = false;
    let sent = true;
    try {
      await this.send(this.wire(++this.sequence, topic));
    } catch {
      sent = false;
    }
    // Closed, or the retry was dropped meanwhile.
    if (this.retries.get(topic) !== retry) return;
    if (sent && !retry.again) this.retries.delete(topic);
    else this.scheduleRetry(topic, retry);
  }
}

/** `<nonce> <kind> [<first> [<rest>]]`: the rest (a topic) may itself hold spaces. */
function splitWire(message: string): [string?, string?, string?, string?] {
  const first = message.indexOf(' ');
  if (first <= 0) return [];
  const second = message.indexOf(' ', first + 1);
  const sender = message.slice(0, first);
  if (second < 0) return [sender, message.slice(first + 1)];
  const kind = message.slice(first + 1, second);
  const third = message.indexOf(' ', second + 1);
  if (third < 0) return [sender, kind, message.slice(second + 1)];
  return [sender, kind, message.slice(second + 1, third), message.slice(third + 1)];
}
