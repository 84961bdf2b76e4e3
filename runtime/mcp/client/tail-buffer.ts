// The end of a child's stderr, kept for the error that reports its exit.

/** The last `maxBytes` of a stream (a server's stderr), for the error that reports its exit. */
export class TailBuffer {
  private tail = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.length > this.maxBytes ? joined.subarray(joined.length - this.maxBytes) : joined;
  }

  text(): string {
    return this.tail.toString('utf8');
  }
}
