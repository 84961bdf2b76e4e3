// Where JSON Schema 2020-12 keeps subschemas: the keywords every walk over a spec schema descends into.

/** Keywords holding an object of named subschemas. */
export const SUBSCHEMA_MAPS: readonly string[] = ['properties', 'patternProperties', 'dependentSchemas'];
/** Keywords holding one subschema. `contentSchema` is an annotation ajv never validates against. */
export const SUBSCHEMA_SINGLES: readonly string[] = [
  'additionalProperties',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords holding a list of subschemas. */
export const SUBSCHEMA_LISTS: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
