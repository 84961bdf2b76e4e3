// One error envelope for every error: `{ error: { code, message, details? } }` (validation errors carry
// `part` and `issues` instead of details). Only deliberate errors
// keep their status and message; everything unexpected is a 500 INTERNAL_ERROR with a neutral message.
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { SvcError } from './errors.js';
import { detailsFit, sanitizeDetails, type DetailsObject } from './details.js';
import { fixedCodeForStatus, neutralMessage } from './framework-errors.js';
import { RequestValidationError, type ValidationIssue } from './http-errors.js';
import type { RequestPart } from './types.js';

export interface ErrorBody {
  code: string;
  message: string;
  details?: DetailsObject;
  part?: RequestPart;
  issues?: readonly ValidationIssue[];
}

export interface ErrorEnvelope {
  error: ErrorBody;
}

export interface ErrorResponse {
  status: number;
  body: ErrorEnvelope;
}

/** Filters public details after sanitising; its result is sanitised again. Throwing sends no details. */
export type DetailsRedactor = (details: DetailsObject) => unknown;

export interface ToErrorResponseOptions {
  /** Applied to public details; none by default (HTTP adapters), `redactSensitiveDetails` for tool results. */
  redactDetails?: DetailsRedactor | false;
}

/** The keys of ToErrorResponseOptions, built once: errors are answered often. */
const TO_ERROR_RESPONSE_OPTIONS: readonly string[] = optionKeys<ToErrorResponseOptions>({
  redactDetails: true,
});

const CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/;

/** An error status the envelope may carry; anything else answers 500. */
function errorStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599
    ? value
    : undefined;
}

/** Public details of a deliberate error: sanitised, optionally redacted, size-capped; undefined to send none. */
export function publicDetails(
  details: unknown,
  redactor?: DetailsRedactor | false,
): DetailsObject | undefined {
  let value = sanitizeDetails(details);
  if (value === undefined) return undefined;
  if (redactor) {
    try {
      value = sanitizeDetails(redactor(value));
    } catch {
      return undefined;
    }
    if (value === undefined) return undefined;
  }
  return detailsFit(value) ? value : undefined;
}

function internalError(): ErrorResponse {
  return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: neutralMessage(500) } } };
}

function fromSvcError(error: SvcError, options: ToErrorResponseOptions): ErrorResponse {
  const status = errorStatus(error.status) ?? 500;
  if (error.expose === false) {
    return { status, body: { error: { code: error.code, message: neutralMessage(status) } } };
  }
  const message = status === 500 && error.expose !== true ? neutralMessage(500) : error.message;
  const body: ErrorBody = { code: error.code, message };
  const details = publicDetails(error.details, options.redactDetails);
  if (details !== undefined) body.details = details;
  return { status, body: { error: body } };
}

interface ExposedError {
  expose: true;
  status?: unknown;
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
}

function isExposed(error: unknown): error is ExposedError {
  return typeof error === 'object' && error !== null && (error as { expose?: unknown }).expose === true;
}

/** An error from elsewhere that declares itself safe to show (`expose: true`, as http-errors does). */
function fromExposedError(error: ExposedError): ErrorResponse {
  const status = errorStatus(error.status) ?? errorStatus(error.statusCode) ?? 500;
  const code =
    typeof error.code === 'string' && CODE_PATTERN.test(error.code) ? error.code : fixedCodeForStatus(status);
  const message =
    typeof error.message === 'string' && error.message !== '' ? error.message : neutralMessage(status);
  return { status, body: { error: { code, message } } };
}

/**
 * The status and JSON body answered for `error`. Never throws for any `error`; an unknown option key is a
 * programming mistake and throws a TypeError naming it.
 */
export function toErrorResponse(error: unknown, options: ToErrorResponseOptions = {}): ErrorResponse {
  // A for-in over the one key allocates nothing; the shared check only runs (and throws) on an unknown key.
  for (const key in options) {
    if (!TO_ERROR_RESPONSE_OPTIONS.includes(key)) {
      rejectUnknownOptions(options, TO_ERROR_RESPONSE_OPTIONS, 'toErrorResponse()');
    }
  }
  try {
    if (error instanceof RequestValidationError) {
      const { code, message, part, issues } = error;
      return { status: error.status, body: { error: { code, message, part, issues } } };
    }
    if (error instanceof SvcError) return fromSvcError(error, options);
    if (isExposed(error)) return fromExposedError(error);
  } catch {
    // A hostile error object (throwing getters, proxies) is treated like any unexpected error.
  }
  return internalError();
}
