// Retry delays that double: what every room that tries again after a failure waits between tries.

/**
 * The wait before retry number `attempt` (0 for the first): `firstMs`, doubling with each retry, never above
 * `maxMs`. No jitter: each of these retries talks to one peer (its LND, its relay, its provider), so there is no
 * herd of clients to spread.
 */
export function doublingDelayMs(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, attempt))
}
