export {
  LoginThrottle,
  DEFAULT_LOGIN_MAX_ATTEMPTS,
  DEFAULT_LOGIN_MAX_ATTEMPTS_PER_IP,
  DEFAULT_LOGIN_WINDOW_MS,
  UNKNOWN_IP_KEY,
  type LoginKeyReservation,
  type LoginAttempt,
  type LoginReservation,
  type LoginThrottleOptions,
} from './login-throttle.js';
export {
  MemoryThrottleStore,
  DEFAULT_THROTTLE_MAX_ENTRIES,
  type MemoryThrottleStoreOptions,
} from './memory-store.js';
export {
  isLocked,
  type ThrottleEntry,
  type ThrottleRefund,
  type ThrottleReservation,
  type ThrottleReserved,
  type ThrottleStore,
} from './store.js';
