// SIGKILL at random moments of a load led by relay requests (kind-21000 payments between relay users), with
// payments of every other kind, orders and a payroll tick around them.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite({
  title: 'SIGKILL under relay requests',
  seedOffset: 3,
  ciCycles: 13,
  mix: { internal: 1, external: 1, receipts: 1, orders: 1, relayPayments: 6, ticks: 1 },
})
