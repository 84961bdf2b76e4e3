// Newline-delimited framing for the stdio transport: bytes from the child in, one string per line out, with
// a cap on line length so a server that never writes a newline cannot grow the client's memory without end.

export class LineReader {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Feeds bytes; false when a line passed `maxLineBytes` (the reader is then of no further use). */
  push(chunk: Buffer): boolean {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      const part = chunk.subarray(start, newline);
      if (this.length + part.length > this.maxLineBytes) return false;
      // Concatenate only when a line spans chunks; the usual line is one slice of one chunk.
      const bytes = this.length === 0 ? part : Buffer.concat([...this.chunks, part]);
      this.chunks = [];
      this.length = 0;
      start = newline + 1;
      const line = bytes.toString('utf8');
      this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.length + rest.length > this.maxLineBytes) return false;
      this.chunks.push(rest);
      this.length += rest.length;
    }
    return true;
  }
}

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
