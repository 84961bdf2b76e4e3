// Reading a request body up to a limit, for every adapter's JSON/form/text routes and for raw bodies: the
// bytes are collected until the end, and the read stops with 413 PAYLOAD_TOO_LARGE as soon as more than
// `limit` bytes arrived (the rest is left unread: the adapter closes the connection once answered). A body
// that breaks off (reset, aborted upload) is the client's failure: 400 BAD_REQUEST.
import type { Readable } from 'node:stream';
import { errors } from '../../generated/modules/errors.js';

const UNREADABLE = 'The request body could not be read.';

/** The whole body of `stream`; rejects with 413 past `limit` bytes and with 400 when it breaks off. */
export function readBodyUpTo(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        reject(errors.PAYLOAD_TOO_LARGE());
        return;
      }
      if (first === undefined) first = chunk;
      else (rest ??= [first]).push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(rest === undefined ? (first ?? Buffer.alloc(0)) : Buffer.concat(rest, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(errors.BAD_REQUEST({ message: UNREADABLE, cause: error }));
    };
    // Closed by the client before the end: nothing usable arrived.
    const onClose = () => {
      cleanup();
      reject(errors.BAD_REQUEST({ message: UNREADABLE }));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
