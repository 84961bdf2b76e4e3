export * from './app/app.js';
export * from './http/errors.js';
export type * from './http/types.js';
