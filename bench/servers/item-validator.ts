// The validator the plain Express and Hono servers use: ajv compiled once from ITEM_SCHEMA at start-up, as a
// team without svc would write it, so the comparison does not pit svc's precompiled validator against none.
import { Ajv } from 'ajv';
import { ITEM_SCHEMA } from './shared.js';

const ajv = new Ajv();

export const validateItem = ajv.compile(ITEM_SCHEMA);

/** The 400 answer of the plain servers; the bench only sends valid bodies, so its shape is not measured. */
export function invalidItemBody(): { error: { code: string; message: string } } {
  return { error: { code: 'HTTP_VALIDATION', message: ajv.errorsText(validateItem.errors) } };
}
