// The modules that ajv's standalone validators (generated/validators.js) ask for. Ajv writes
// `require("ajv/dist/runtime/equal")` even in ESM output; svc build makes validators.js start with
// `import { requireRuntime as require } from 'svckit/validation-runtime'`, so those calls land here and get
// a module from a fixed table: nothing outside the table can ever be loaded.
import { createRequire } from 'node:module';
import { errors } from '../../generated/modules/errors.js';
import {
  VALIDATION_RUNTIME_SPECIFIERS,
  type ValidationRuntimeSpecifier,
} from '../../shared/validation/runtime-specifiers.js';

// Loaded with require(), so each entry is exactly what ajv's own `require(...)` would return (an ESM default
// import of these CommonJS files differs between Node and bundlers). Every specifier is a literal here.
// `ajv/dist/runtime/re2` is left out on purpose: svc's ajv never sets `code.regExp`, and the `re2` package it
// needs is not installed. parseJson, quote and timestamp serve JTD parsers/serializers, which svc never compiles.
const load = createRequire(import.meta.url);
const RUNTIME_MODULES: Readonly<Record<ValidationRuntimeSpecifier, () => unknown>> = {
  'ajv/dist/runtime/equal': () => load('ajv/dist/runtime/equal'),
  'ajv/dist/runtime/ucs2length': () => load('ajv/dist/runtime/ucs2length'),
  'ajv/dist/runtime/uri': () => load('ajv/dist/runtime/uri'),
  'ajv/dist/runtime/validation_error': () => load('ajv/dist/runtime/validation_error'),
  'ajv-formats/dist/formats': () => load('ajv-formats/dist/formats'),
};

export { VALIDATION_RUNTIME_SPECIFIERS };

/** `require()` for generated validators: returns a module from the fixed table, throws for anything else. */
export function requireRuntime(specifier: string): unknown {
  const loadModule = Object.hasOwn(RUNTIME_MODULES, specifier)
    ? RUNTIME_MODULES[specifier as ValidationRuntimeSpecifier]
    : undefined;
  if (loadModule === undefined) {
    throw errors.VALIDATION_RUNTIME_UNKNOWN({
      message: `Generated validators asked for '${specifier}', which svckit/validation-runtime does not provide. Rebuild them with this svckit version (svc build).`,
      details: { specifier },
    });
  }
  return loadModule();
}
