// A tenant's quota, held under concurrency: an upload reserves room in the store before its bytes are written
// (the whole declared size at once, a stream's known bound at once when that fits, or step by step as a
// stream arrives) and the store turns the reservation into the record in one step. Each reservation is
// atomic in the store, so parallel uploads never share the same free bytes; a refused step stops the upload
// before the bytes that needed it are written.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import type { FileStore } from '../store/store.js';

/** How much a streamed upload of unknown size reserves at a time. */
const QUOTA_STEP_BYTES = 1_048_576;
/** A reservation lives this long without a step (an upload stalled longer gives its room back). */
const QUOTA_RESERVATION_TTL_MS = 3_600_000;

export class QuotaHold {
  /** Undefined when the service has no quota: nothing is reserved and commit takes no reservation. */
  readonly reservationId: string | undefined;
  private reserved = 0;
  private renewedAt = 0;

  constructor(
    private readonly store: FileStore,
    private readonly tenantId: string,
    private readonly limit: number | undefined,
    private readonly maxSize: number,
    private readonly clock: () => number,
  ) {
    this.reservationId = limit === undefined ? undefined : randomUUID();
  }

  /** Makes sure exactly `total` bytes are covered: for a size known before writing. */
  async coverExactly(total: number): Promise<void> {
    await this.renewIfOld();
    if (total > this.reserved && !(await this.grow(total - this.reserved))) throw quotaExceeded();
  }

  /**
   * For a stream of unknown size but known bound (what is left of a request that declared its length): all
   * of it is reserved in one step when it fits, so the upload never has to grow and uploads in flight cannot
   * starve each other with partial reservations (each failing a later step on room the others hold). When it
   * does not fit, nothing is reserved and the stream grows step by step: a file that exactly fills what is
   * left still fits. The commit then keeps just the real size.
   */
  async coverUpTo(bound: number): Promise<void> {
    if (this.reservationId === undefined || bound <= this.reserved) return;
    await this.renewIfOld();
    await this.grow(bound - this.reserved);
  }

  /**
   * Right before the commit: a reservation that expired while the upload was read or written (a stall of an
   * hour) no longer holds its room, which another upload may have taken; it is reserved again or the upload
   * is refused, so the record is never committed on room nobody holds.
   */
  async confirm(): Promise<void> {
    if (this.reservationId !== undefined) await this.renewIfOld();
  }

  /**
   * Makes sure `total` bytes are covered. A stream of unknown size grows its reservation ahead of its bytes,
   * so it does not reach the store for every chunk, but only as fast as it proves it needs the room: the
   * first step is just the bytes at hand, each later one as much as is held already (doubling), at most
   * QUOTA_STEP_BYTES and never past the file cap. Many small uploads in flight therefore hold little more than
   * their own bytes and do not crowd each other out of a tight quota. When a step does not fit, just what is
   * needed is tried.
   */
  async cover(total: number): Promise<void> {
    if (this.reservationId === undefined) return;
    await this.renewIfOld();
    if (total <= this.reserved) return;
    const needed = total - this.reserved;
    const ahead = Math.min(QUOTA_STEP_BYTES, this.reserved, this.maxSize - this.reserved);
    const step = Math.max(needed, ahead);
    if (await this.grow(step)) return;
    if (step > needed && (await this.grow(needed))) return;
    throw quotaExceeded();
  }

  /** Gives the room back (after a failure); never throws. */
  async release(): Promise<void> {
    if (this.reservationId === undefined) return;
    await this.store.release(this.reservationId).catch(() => undefined);
  }

  private async grow(bytes: number): Promise<boolean> {
    if (this.reservationId === undefined) return true;
    const now = this.clock();
    const made = await this.store.reserve({
      tenantId: this.tenantId,
      reservationId: this.reservationId,
      bytes,
      limit: this.limit,
      now,
      ttlMs: QUOTA_RESERVATION_TTL_MS,
    });
    if (made) {
      this.reserved += bytes;
      this.renewedAt = now;
    }
    return made;
  }

  /**
   * A long upload renews its reservation before it expires; after a stall long enough for it to expire, the
   * room it held is gone and must be reserved again (and may have been taken meanwhile).
   */
  private async renewIfOld(): Promise<void> {
    const age = this.clock() - this.renewedAt;
    if (this.reserved === 0 || age < QUOTA_RESERVATION_TTL_MS / 2) return;
    const lost = age >= QUOTA_RESERVATION_TTL_MS ? this.reserved : 0;
    this.reserved -= lost;
    if (!(await this.grow(lost))) throw quotaExceeded();
  }
}

export function quotaExceeded() {
  return errors.FILE_QUOTA_EXCEEDED();
}
