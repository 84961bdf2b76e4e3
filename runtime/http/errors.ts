// The error classes the runtime and handlers throw. Codes come from the catalog (spec/errors.yaml and the
// application's `errors:`); generated constructors (`errors.NOTE_NOT_FOUND()`) build these, so code and
// status are never typed by hand.

export interface SvcErrorOptions {
  /** Public, deliberately chosen data; sanitised and size-capped before it leaves. */
  details?: unknown;
  /** Never serialised into a response or tool result; goes only to the error reporter. */
  internalDetails?: unknown;
  cause?: unknown;
  /** true: the message is sent even on a 500; false: only the code and a neutral message at any status. */
  expose?: boolean;
  /**
   * What the person running the service should do about it, in one line (`run svc db:migrate`). Printed with
   * a boot refusal (runtime/app/boot-report.ts), never sent to a client. Default: the catalog entry's `hint`.
   */
  hint?: string;
}

/** Base of every error svc raises on purpose. `status` is undefined for boot-time errors. */
export class SvcError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly details: unknown;
  readonly internalDetails: unknown;
  readonly expose: boolean | undefined;
  readonly hint: string | undefined;

  constructor(status: number | undefined, code: string, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.internalDetails = options.internalDetails;
    this.expose = options.expose;
    this.hint = options.hint;
  }
}

/** An error answered with its own status, code and message: `new HttpError(404, 'NOTE_NOT_FOUND', 'Note not found.')`. */
export class HttpError extends SvcError {
  declare readonly status: number;

  constructor(status: number, code: string, message: string, options: SvcErrorOptions = {}) {
    super(status, code, message, options);
  }
}

/** A misconfiguration found while booting; the process refuses to start. */
export class BootError extends SvcError {
  constructor(code: string, message: string, options: SvcErrorOptions = {}) {
    super(undefined, code, message, options);
  }
}

/** Options of a generated error constructor: the catalog message may be replaced, the status only by an allowed one. */
export interface ErrorFactoryOptions<Status extends number = never> extends SvcErrorOptions {
  message?: string;
  status?: Status;
}

/** One entry of an error catalog as generated into errors.ts. */
export interface ErrorCatalogEntry {
  /** HTTP status, or 'boot' for errors that refuse start-up and never reach a client. */
  readonly status: number | 'boot';
  /** Other statuses the same code may be answered with (AUTH_TOKEN_INVALID: 401 for tokens, 400 for links). */
  readonly statuses?: readonly number[];
  readonly message: string;
  readonly module: string;
  /** What to do about it, for the person running the service (spec/errors.yaml `hint:`). */
  readonly hint?: string;
}
