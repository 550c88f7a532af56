// SIGKILL at random moments of a payment-heavy load over HTTP (with some orders and ticks mixed in), where the
// group commit holds the most money movements at once.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite({
  title: 'SIGKILL under a payment-heavy load',
  seedOffset: 2,
  ciCycles: 13,
  mix: { internal: 8, external: 4, receipts: 4, orders: 1, relayPayments: 1, ticks: 1 },
})
