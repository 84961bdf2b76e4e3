export { ExpiringMap, type ExpiringMapOptions } from './expiring-map.js';
