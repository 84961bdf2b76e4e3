// `upload({ maxBytes, maxFiles, ... })`: the route helper of a streamed multipart/form-data body
// (docs/http.md, "Upload bodies"). Options are checked when the route is defined, so a wrong limit fails at boot, naming the
// option, instead of on the first request.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import type { UploadBody, UploadLimits } from '../types.js';
import { isAllowedTypePattern } from './media-type-match.js';

/** Text fields accepted by default. */
export const DEFAULT_MAX_FIELDS = 50;
/** Largest text field value by default: 64 KiB. */
export const DEFAULT_MAX_FIELD_BYTES = 64 * 1024;
/** Largest header block of one part by default: 8 KiB. */
export const DEFAULT_MAX_HEADER_BYTES = 8 * 1024;

/** The defaults of the optional limits (`maxFileBytes` defaults to `maxBytes`, `allowedTypes` to any). */
export const DEFAULT_UPLOAD_LIMITS = Object.freeze({
  maxFields: DEFAULT_MAX_FIELDS,
  maxFieldBytes: DEFAULT_MAX_FIELD_BYTES,
  maxHeaderBytes: DEFAULT_MAX_HEADER_BYTES,
});

export interface UploadOptions {
  /** Whole request body, in bytes (at least 1). A larger declared Content-Length is refused before reading. */
  maxBytes: number;
  /** Files accepted; 0 accepts text fields only. */
  maxFiles: number;
  /** Per file; default `maxBytes`. */
  maxFileBytes?: number;
  /** Text fields accepted; default 50. */
  maxFields?: number;
  /** Per text field value; default 64 KiB. */
  maxFieldBytes?: number;
  /** Header block of one part; default 8 KiB. */
  maxHeaderBytes?: number;
  /** Declared file types accepted: `image/png`, `image/*` or `*\/*`; default any. */
  allowedTypes?: readonly string[];
}

/** The keys of UploadOptions; any other is refused when the route is made. */
const OPTION_NAMES = optionKeys<UploadOptions>({
  maxBytes: true,
  maxFiles: true,
  maxFileBytes: true,
  maxFields: true,
  maxFieldBytes: true,
  maxHeaderBytes: true,
  allowedTypes: true,
});

const OWNER = 'upload()';

function integer(name: string, value: unknown, minimum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw invalidOption(OWNER, name, `a whole number, ${minimum} or more`, `got ${String(value)}`);
  }
  return value;
}

function optionalInteger(name: string, value: unknown, minimum: number, fallback: number): number {
  return value === undefined ? fallback : integer(name, value, minimum);
}

function allowedTypesOf(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidOption(
      OWNER,
      'allowedTypes',
      'a non-empty array of media types',
      'use maxFiles: 0 to accept no file',
    );
  }
  return Object.freeze(
    value.map((entry: unknown) => {
      if (typeof entry !== 'string' || !isAllowedTypePattern(entry)) {
        throw invalidOption(
          OWNER,
          'allowedTypes',
          'media types such as "image/png", "image/*" or "*/*"',
          `got ${JSON.stringify(entry)}`,
        );
      }
      return entry.toLowerCase();
    }),
  );
}

/** Validates the options and fills in the defaults. Throws an OptionError naming the first wrong option. */
export function resolveUploadLimits(options: UploadOptions): UploadLimits {
  if (options === null || typeof options !== 'object') {
    throw invalidOptions(OWNER, 'an object { maxBytes, maxFiles }');
  }
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const maxBytes = integer('maxBytes', options.maxBytes, 1);
  return Object.freeze({
    maxBytes,
    maxFiles: integer('maxFiles', options.maxFiles, 0),
    maxFileBytes: optionalInteger('maxFileBytes', options.maxFileBytes, 1, maxBytes),
    maxFields: optionalInteger('maxFields', options.maxFields, 0, DEFAULT_MAX_FIELDS),
    maxFieldBytes: optionalInteger('maxFieldBytes', options.maxFieldBytes, 0, DEFAULT_MAX_FIELD_BYTES),
    maxHeaderBytes: optionalInteger('maxHeaderBytes', options.maxHeaderBytes, 1, DEFAULT_MAX_HEADER_BYTES),
    allowedTypes: allowedTypesOf(options.allowedTypes),
  });
}

/** An upload route's body: `route({ method: 'POST', url, body: upload({ maxBytes, maxFiles }), handler })`. */
export function upload(options: UploadOptions): UploadBody {
  return { kind: 'upload', limits: resolveUploadLimits(options) };
}
