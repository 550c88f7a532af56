// How long to wait before the next attempt to reach LND, at start (wait_for_node) and when a stream drops:
// 1 s, doubling up to a minute. No jitter: one daemon talks to one LND, so there is no herd to spread.

const firstDelayMs = 1000
export const maxReconnectDelayMs = 60_000

/** The delay after the `failures`-th failure in a row (1, 2, 3, …). */
export function backoffDelayMs(failures: number): number {
  return Math.min(maxReconnectDelayMs, firstDelayMs * 2 ** Math.max(0, failures - 1))
}

