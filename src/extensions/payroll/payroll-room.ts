// What payroll's handlers close over: its stores, the contract locks, the payment path and the scheduler.
import type { Clock } from '../../bus/index.js'
import type { Rates } from '../../rates/index.js'
import type { ExtensionWallets } from '../host/index.js'
import type { ContractLocks } from './contract-locks.js'
import type { ContractsStore } from './contracts-store.js'
import type { LedgerStore } from './ledger-store.js'
import type { PayPeriodDeps } from './pay-period.js'
import type { Scheduler } from './scheduler.js'

export interface PayrollRoom {
  contracts: ContractsStore
  ledger: LedgerStore
  locks: ContractLocks
  pay: PayPeriodDeps
  scheduler: Scheduler
  wallets: ExtensionWallets
  rates: Rates
  /** Payroll's clock (see settings.ts); handlers use it rather than ctx.clock so the calendar is one. */
  clock: Clock
  newId(): string
}
