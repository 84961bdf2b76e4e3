// Newline-delimited framing of the stdio transport (both ends): bytes in, one string per line out (a CR
// before the LF is dropped), with a cap on line length so a peer that never writes a newline cannot grow
// memory without end. The client gives up on such a peer; the server discards the line and reads on.

export class LineReader {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Inside an over-long line whose end has not arrived yet: its bytes are dropped. */
  private discarding = false;

  /**
   * `onTooLong` given: an over-long line is reported once, dropped up to its newline, and reading goes on.
   * Without it, push() returns false at such a line and the reader is of no further use.
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onTooLong?: () => void,
  ) {}

  /** Feeds bytes; false when a line passed `maxLineBytes` and no `onTooLong` was given. */
  push(chunk: Buffer): boolean {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      const part = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      if (this.length + part.length > this.maxLineBytes) {
        if (this.onTooLong === undefined) return false;
        this.reset();
        this.onTooLong();
        continue;
      }
      // Concatenate only when a line spans chunks; the usual line is one slice of one chunk.
      const bytes = this.length === 0 ? part : Buffer.concat([...this.chunks, part]);
      this.reset();
      const line = bytes.toString('utf8');
      this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (start < chunk.length && !this.discarding) {
      const rest = chunk.subarray(start);
      if (this.length + rest.length > this.maxLineBytes) {
        if (this.onTooLong === undefined) return false;
        this.reset();
        this.discarding = true;
        this.onTooLong();
        return true;
      }
      this.chunks.push(rest);
      this.length += rest.length;
    }
    return true;
  }

  private reset(): void {
    this.chunks = [];
    this.length = 0;
  }
}
