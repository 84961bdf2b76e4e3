// The modules ajv's standalone validators may `require()`: the generator refuses output that asks for anything
// else, and svckit/validation-runtime serves exactly these (its table is typed by this list).
export const VALIDATION_RUNTIME_SPECIFIERS = [
  'ajv/dist/runtime/equal',
  'ajv/dist/runtime/ucs2length',
  'ajv/dist/runtime/uri',
  'ajv/dist/runtime/validation_error',
  'ajv-formats/dist/formats',
] as const;

export type ValidationRuntimeSpecifier = (typeof VALIDATION_RUNTIME_SPECIFIERS)[number];
