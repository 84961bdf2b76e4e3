// One INSTREAM scan against clamd: connect, send `zINSTREAM\0`, then the bytes as chunks each prefixed with
// its length (4 bytes, big-endian), then a zero length, and read the NUL-terminated answer. Chunks are pulled
// from the source one at a time and the next is pulled only once the socket has taken the last, so a file of
// any size costs one chunk of memory. Every path ends with the socket destroyed, and a source that was not
// read to its end destroyed too.
import { connect, type Socket } from 'node:net';
import { describeClamdAddress, type ClamdAddress } from './clamd-url.js';
import { MAX_REPLY_LENGTH, parseClamdReply, type ClamdScanOutcome } from './clamd-reply.js';

/** Bytes to scan: a whole buffer, or a stream of byte chunks (a Node Readable is one). */
export type ScanContent = Uint8Array | AsyncIterable<Uint8Array>;

export interface ClamdInstreamOptions {
  /** The longest time without progress (connecting, clamd taking bytes, clamd answering), in ms. */
  timeoutMs: number;
  /** Stop and answer `too-large` once the source passes this many bytes, before sending them. Default none. */
  maxStreamBytes?: number;
  /** The most bytes in one INSTREAM chunk. Default 64 KiB. */
  chunkBytes?: number;
}

export const DEFAULT_CHUNK_BYTES = 64 * 1024;

const INSTREAM_COMMAND = Buffer.from('zINSTREAM\0', 'latin1');
const END_OF_STREAM = Buffer.alloc(4);

/** Scans `content` with the clamd at `address`. Never rejects: every failure is an outcome. */
export async function clamdInstream(
  address: ClamdAddress,
  content: ScanContent,
  options: ClamdInstreamOptions,
): Promise<ClamdScanOutcome> {
  const socket =
    address.transport === 'tcp'
      ? connect({ host: address.host, port: address.port })
      : connect({ path: address.path });
  const connection = new ClamdConnection(socket, address, options.timeoutMs);
  try {
    if (!(await connection.connected)) return await connection.outcome;
    // The race ends a send stalled on its source when clamd times out or answers.
    const sent = await Promise.race([sendStream(socket, content, connection, options), connection.outcome]);
    if (!isOutcome(sent) && sent.kind === 'source-failed') return { status: 'error', message: sent.message };
    if (!isOutcome(sent) && sent.kind === 'over-limit') {
      return { status: 'too-large', message: `more than maxStreamBytes (${options.maxStreamBytes})` };
    }
    const outcome = await connection.outcome;
    // A verdict given before clamd had the whole stream is about part of the file: only a detection counts.
    if (outcome.status === 'clean' && !connection.streamEnded) {
      return { status: 'error', message: 'clamd answered OK before the end of the stream' };
    }
    return outcome;
  } finally {
    socket.destroy();
    destroySource(content);
  }
}

type SendResult =
  | { kind: 'sent' }
  | { kind: 'interrupted' }
  | { kind: 'over-limit' }
  | { kind: 'source-failed'; message: string };

async function sendStream(
  socket: Socket,
  content: ScanContent,
  connection: ClamdConnection,
  options: ClamdInstreamOptions,
): Promise<SendResult> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  socket.write(INSTREAM_COMMAND);
  let total = 0;
  try {
    for await (const chunk of content instanceof Uint8Array ? [content] : content) {
      if (!(chunk instanceof Uint8Array))
        return { kind: 'source-failed', message: 'the source gave no bytes' };
      total += chunk.length;
      if (options.maxStreamBytes !== undefined && total > options.maxStreamBytes)
        return { kind: 'over-limit' };
      for (let offset = 0; offset < chunk.length; offset += chunkBytes) {
        if (connection.settled) return { kind: 'interrupted' };
        const piece = chunk.subarray(offset, offset + chunkBytes);
        const header = Buffer.alloc(4);
        header.writeUInt32BE(piece.length);
        socket.write(header);
        if (!socket.write(piece)) await connection.drained();
      }
    }
  } catch (error) {
    return { kind: 'source-failed', message: `reading the file failed: ${messageOf(error)}` };
  }
  if (connection.settled) return { kind: 'interrupted' };
  socket.write(END_OF_STREAM);
  connection.stage = 'reply';
  connection.streamEnded = true;
  return { kind: 'sent' };
}

/**
 * Watches one socket and settles `outcome` once: at the first NUL-terminated answer, the connection's end,
 * an error, or `timeoutMs` without activity.
 */
class ClamdConnection {
  readonly outcome: Promise<ClamdScanOutcome>;
  /** True once connected; false when the outcome settled first (refused, no socket, timeout). */
  readonly connected: Promise<boolean>;
  stage: 'connect' | 'send' | 'reply' = 'connect';
  /** Set once the zero-length terminator is written: only then can `stream: OK` be about the whole file. */
  streamEnded = false;
  settled = false;
  private resolveOutcome!: (outcome: ClamdScanOutcome) => void;
  private readonly onSettle = new Set<() => void>();
  private reply = '';

  constructor(
    private readonly socket: Socket,
    private readonly address: ClamdAddress,
    timeoutMs: number,
  ) {
    this.outcome = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
    this.connected = new Promise((resolve) => {
      socket.once('connect', () => {
        this.stage = 'send';
        resolve(true);
      });
      this.onSettle.add(() => resolve(false));
    });
    socket.setTimeout(timeoutMs, () => this.settle(this.timedOut(timeoutMs)));
    socket.on('data', (data: Buffer) => this.receive(data));
    socket.on('end', () => this.settle(this.endedReply()));
    socket.on('error', (error) => this.settle(this.failed(error)));
    socket.on('close', () =>
      this.settle({ status: 'error', message: `${this.where()} closed the connection` }),
    );
  }

  /** Resolves when the socket wants more bytes, or when the outcome settles (then sending stops). */
  drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.onSettle.delete(done);
        resolve();
      };
      this.socket.on('drain', done);
      this.onSettle.add(done);
    });
  }

  private settle(outcome: ClamdScanOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveOutcome(outcome);
    for (const listener of [...this.onSettle]) listener();
  }

  private receive(data: Buffer): void {
    const end = data.indexOf(0);
    this.reply += data.toString('latin1', 0, end === -1 ? data.length : end);
    if (end !== -1) this.settle(parseClamdReply(this.reply));
    else if (this.reply.length > MAX_REPLY_LENGTH) {
      this.settle({ status: 'error', message: `${this.where()} answered more than a reply line` });
    }
  }

  /** The peer closed without a NUL: a partial line may still say "size limit", but never counts as clean. */
  private endedReply(): ClamdScanOutcome {
    const outcome = parseClamdReply(this.reply);
    if (outcome.status !== 'clean') return outcome;
    return { status: 'error', message: `${this.where()} closed the connection mid-answer` };
  }

  private failed(error: Error): ClamdScanOutcome {
    const code = (error as NodeJS.ErrnoException).code ?? error.name;
    if (this.stage === 'connect') {
      return { status: 'unavailable', message: `cannot reach ${this.where()}: ${code}` };
    }
    return {
      status: 'error',
      message: `connection to ${this.where()} failed while in ${this.stage}: ${code}`,
    };
  }

  private timedOut(timeoutMs: number): ClamdScanOutcome {
    const waiting = { connect: 'to connect', send: 'to take bytes', reply: 'to answer' }[this.stage];
    return {
      status: 'timeout',
      stage: this.stage,
      message: `${this.where()} took longer than ${timeoutMs} ms ${waiting}`,
    };
  }

  private where(): string {
    return `clamd at ${describeClamdAddress(this.address)}`;
  }
}

function isOutcome(value: SendResult | ClamdScanOutcome): value is ClamdScanOutcome {
  return 'status' in value;
}

/** A stream left half-read (stopped early, timed out) is destroyed so that its file handle closes. */
function destroySource(content: ScanContent): void {
  const stream = content as Partial<{ destroy: () => void; destroyed: boolean }>;
  if (typeof stream.destroy === 'function' && stream.destroyed !== true) stream.destroy();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
