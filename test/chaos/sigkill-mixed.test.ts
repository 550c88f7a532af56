// SIGKILL at random moments while every kind of work runs at once: payments inside the node, to other nodes
// and from outside, restaurant orders, payroll ticks and payments over the relay.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite({
  title: 'SIGKILL under mixed load',
  seedOffset: 1,
  ciCycles: 13,
  mix: { internal: 3, external: 2, receipts: 2, orders: 2, relayPayments: 2, ticks: 1 },
})
