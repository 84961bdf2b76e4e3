// What every adapter's reply does alike: the status so far, whether a handler, guard or hook chose it (the
// pipeline fills in the route's success status only when nobody did), and send() as a finish() at that status.
import { checkedStatus } from './status.js';

export abstract class BaseReply {
  protected code: number;
  private chosen = false;

  constructor(initialStatus: number) {
    this.code = initialStatus;
  }

  get statusCode(): number {
    return this.code;
  }

  get statusChosen(): boolean {
    return this.chosen;
  }

  status(code: number): this {
    this.code = checkedStatus(code);
    this.chosen = true;
    return this;
  }

  send(payload?: string | Buffer): void {
    this.finish(this.code, payload, undefined);
  }

  /** Writes the answer: the framework's own way of sending status, headers and body. */
  abstract finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void;
}
