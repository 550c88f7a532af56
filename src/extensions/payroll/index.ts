// The payroll extension (docs/payroll.md): contracts paying an employee wallet a fixed amount per period from a
// source wallet, a scheduler that pays due periods as internal payments, the payout ledger and its CSV export. The
// door: the daemon starts it through the extension host and nothing else.
import type { Extension } from '../host/index.js'
import { contractLocks } from './contract-locks.js'
import { contractsStore } from './contracts-store.js'
import { contractHandlers } from './handlers/contracts.js'
import { payoutHandlers } from './handlers/payouts.js'
import { scheduleHandlers } from './handlers/schedule.js'
import { ledgerStore } from './ledger-store.js'
import { payrollRef, payrollTag } from './payment-marker.js'
import type { PayrollRoom } from './payroll-room.js'
import { runTick, startScheduler, type SchedulerTimers } from './scheduler.js'
import { payrollClock, payrollSettings } from './settings.js'
import { systemTimers } from '../../bus/index.js'

/** Hosted by the daemon; `id` is the `extra.tag`, the extension gate's id and the enable route's `ext_id`. */
export const payrollExtension: Extension = {
  id: payrollTag,
  async start(host) {
    const settings = payrollSettings(host.config)
    const clock = payrollClock(host.clock, settings.todayOverride)
    if (settings.todayOverride) host.log.warn({ today: settings.todayOverride }, 'payroll runs on a test calendar')
    const newId = () => Buffer.from(host.random(16)).toString('hex')
    const contracts = contractsStore(host.sql)
    const ledger = ledgerStore(host.sql, newId)
    const locks = contractLocks()
    const pay = { ledger, wallets: host.wallets, rates: host.rates, clock, log: host.log }

    // The payer records its own payment; this listener is for the one it could not record: a crash after the
    // money moved, redelivered by the host at the next start (before the first tick).
    host.onInvoicePaid(async paid => {
      const ref = payrollRef(paid.extra)
      if (!ref) return
      const settled = await ledger.settle(paid.paymentHash, clock.now())
      if (!settled) {
        host.log.error({ paymentHash: paid.paymentHash, ...ref }, 'a paid payroll invoice has no ledger row')
      } else if (settled.periodPaidTwice) {
        host.log.error({ paymentHash: paid.paymentHash, ...ref }, 'a payroll period was paid by two invoices; reconcile by hand')
      }
    })

    const scheduler = startScheduler(settings, () => runTick({ contracts, ledger, locks, pay, clock, log: host.log }), {
      timers: systemTimers,
      log: host.log,
    })
    const room: PayrollRoom = { contracts, ledger, locks, pay, scheduler, wallets: host.wallets, rates: host.rates, clock, newId }
    return {
      handlers: { ...contractHandlers(room), ...payoutHandlers(room), ...scheduleHandlers(room) },
      stop: () => scheduler.stop(),
    }
  },
}
