// One ajv configuration for every validator svc makes: the generator's standalone validators and the
// validators route() compiles at boot for handwritten routes. JSON Schema 2020-12, strict, all formats.
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS; depending on the loader its function arrives as the module or as `.default`.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

/** Keywords that only annotate (OpenAPI and editors read them); ajv must accept but ignore them. */
export const ANNOTATION_KEYWORDS = ['example', 'x-hint'] as const;

export const AJV_OPTIONS: Options = {
  strict: true,
  allErrors: true,
  // Query and path values are coerced by svc's own strict parser before validation, never by ajv.
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  discriminator: true,
};

export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, ...options });
  addFormats(ajv);
  for (const keyword of ANNOTATION_KEYWORDS)
    ajv.addKeyword({ keyword, schemaType: ['string', 'object', 'array', 'number', 'boolean', 'null'] });
  return ajv;
}
