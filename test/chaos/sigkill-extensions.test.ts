// SIGKILL at random moments of a load led by the extensions: many restaurant orders paid at once and payroll ticks
// racing each other, with a few payments of every other kind around them.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite({
  title: 'SIGKILL under orders and payroll ticks',
  seedOffset: 4,
  ciCycles: 13,
  mix: { internal: 1, external: 1, receipts: 1, orders: 5, relayPayments: 1, ticks: 2 },
})
