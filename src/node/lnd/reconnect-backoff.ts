// How long to wait before the next attempt to reach LND, at start (wait_for_node) and when a stream drops:
// 1 s, doubling up to a minute.
import { doublingDelayMs } from '../../limits/index.js'

const firstDelayMs = 1000
export const maxReconnectDelayMs = 60_000

/** The delay after the `failures`-th failure in a row (1, 2, 3, …). */
export function backoffDelayMs(failures: number): number {
  return doublingDelayMs(failures - 1, firstDelayMs, maxReconnectDelayMs)
}

