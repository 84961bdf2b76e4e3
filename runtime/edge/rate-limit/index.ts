// Rate limiting for securityPlugin({ rateLimit }) and per-route `meta.rateLimit`.
export { createRateLimiter } from './limiter.js';
export type { GlobalRateLimit, RateLimiter, RateLimiterOptions } from './limiter.js';
export { DEFAULT_LEASED_BUCKETS, LeasedBuckets, leaseSize, MAX_LEASE } from './leased-buckets.js';
export type { LeasedBucketsOptions, LeaseFunction } from './leased-buckets.js';
export { MemoryRateLimitStore, DEFAULT_RATE_LIMIT_MAX_ENTRIES } from './memory-store.js';
export type { MemoryRateLimitStoreOptions } from './memory-store.js';
export { RATE_LIMIT_HEADERS } from './headers.js';
export { isPositiveWholeNumber } from '../../config/whole-number.js';
export type { RateLimitKey, RateLimitKeyFunction, RouteRateLimit } from './route-limit.js';
export type { RateLimitHit, RateLimitLease, RateLimitStore } from './store.js';
export type { RateLimitOptions } from '../security/options.js';
