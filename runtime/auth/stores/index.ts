export * from './users.js';
export * from './sessions.js';
export * from './refresh-tokens.js';
export * from './one-time-tokens.js';
export * from './memory-users.js';
export * from './memory-sessions.js';
export * from './memory-refresh-tokens.js';
export * from './memory-one-time-tokens.js';
