// Limits that protect the service, for any room: bounded memos (a Map or Set that forgets its oldest entries),
// token buckets for what strangers may ask for, keyed by client address, sliding windows, and retry delays that
// double. A ground-floor room: it imports nothing of the daemon's, so every layer may use it.
export { AgedSet, BoundedMap, BoundedSet } from './bounded.js'
export { doublingDelayMs } from './backoff.js'
export { RateLimiter, addressKey, type RateBudget } from './rate-limit.js'
export { SlidingWindow, type WindowTake } from './sliding-window.js'
