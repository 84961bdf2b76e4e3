// The status half of every adapter's reply: the code so far, and whether a handler, guard or hook chose it
// (the pipeline fills in the route's success status only when nobody did).
import { checkedStatus } from './status.js';

export abstract class ReplyStatus {
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
}
