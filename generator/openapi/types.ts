// The OpenAPI subset svc writes lives in spec/openapi/types.ts, shared with the document the runtime serves.
export type * from '../../spec/openapi/types.js';
