// The load mixes the SIGKILL files run, each in two or three files of four cycles (the test runner gives a file
// 5 minutes, and a daemon restart takes seconds on a loaded 2-core machine). `npm run chaos` runs each mix's first
// file with its share of CHAOS_CYCLES.
import type { LoadMix } from './mixed-load.js'

export const loadMixes = {
  /** Every kind of work at once. */
  mixed: { internal: 3, external: 2, receipts: 2, orders: 2, relayPayments: 2, ticks: 1, windowMs: 800 },
  /** Payment-heavy over HTTP, where the group commit holds the most money movements at once. */
  payments: { internal: 8, external: 4, receipts: 4, orders: 1, relayPayments: 1, ticks: 1, windowMs: 800 },
  /** Led by kind-21000 payments between relay users. */
  'relay-requests': { internal: 1, external: 1, receipts: 1, orders: 1, relayPayments: 6, ticks: 1, windowMs: 800 },
  /** Led by the extensions: many orders paid at once, payroll ticks racing each other for the same periods. */
  extensions: { internal: 1, external: 1, receipts: 1, orders: 5, relayPayments: 1, ticks: 2, windowMs: 800 },
  /** A short dense burst: kills land while requests arrive, are half-read, or are committed and not yet answered. */
  burst: { internal: 4, external: 2, receipts: 2, orders: 2, relayPayments: 2, ticks: 1, windowMs: 150 },
} satisfies Record<string, LoadMix>

export type LoadMixName = keyof typeof loadMixes
