// The reply of an upload or raw route: before the response is written, whoever writes it, the unread rest of
// the request body is dealt with (runtime/http/body-release.ts).
import type { Readable } from 'node:stream';
import { closeIfBodyUnread, discardBody } from './body-release.js';
import { ReplyWrapper } from './reply-wrapper.js';
import type { ReplySink } from './types.js';

export class BodyReleasingReply extends ReplyWrapper {
  private readonly body: Readable | undefined;
  private released = false;
  /** Disposes of the unread body; by default discards up to `limit` bytes. An upload session replaces it. */
  drain: () => void;

  constructor(inner: ReplySink, body: Readable | undefined, limit: number) {
    super(inner);
    this.body = body;
    this.drain = () => {
      if (body !== undefined) discardBody(body, limit);
    };
  }

  protected override beforeWrite(): void {
    this.release();
  }

  /** `Connection: close` when the body was not read to its end, then the drain; once, before the first write. */
  release(): void {
    if (this.released) return;
    this.released = true;
    closeIfBodyUnread(this.body, this, this.drain);
  }
}
