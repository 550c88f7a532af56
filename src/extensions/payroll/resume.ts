// Resuming a paused contract (docs/payroll.md, "Pause and resume"). An operator's pause (empty paused_reason)
// writes off the paydays missed while paused; a pause payroll made after repeated failure keeps them, so they
// settle on the next tick. An explicit `catch_up` overrides that inference either way: true keeps, false writes
// off. Each written-off period gets a `skipped` row.
import { type Clock, OperationError } from '../../bus/index.js'
import type { Contract, ContractsStore } from './contracts-store.js'
import type { LedgerStore } from './ledger-store.js'
import { dayOfMs, paydayOf } from './paydays.js'

export interface ResumeDeps {
  contracts: ContractsStore
  ledger: LedgerStore
  clock: Clock
}

/** Run under the contract's lock. Returns the resumed contract. */
export async function resumeContract(deps: ResumeDeps, contract: Contract, catchUp: boolean | undefined): Promise<Contract> {
  if (contract.status !== 'paused') throw new OperationError('invalid_input', 'contract is not paused')
  const keepMissed = catchUp ?? contract.pausedReason !== ''
  const now = deps.clock.now()
  // "Missed" means a payday before today: today's payday is due, not missed, and is paid by the next tick.
  const writeOff = keepMissed
    ? null
    : { paydayOf: (period: number) => paydayOf(contract.startDate, contract.frequency, period), before: dayOfMs(now) }
  if ((await deps.ledger.resume(contract, writeOff, now)) === undefined) {
    throw new OperationError('conflict', 'the contract changed while it was being resumed; try again')
  }
  const resumed = await deps.contracts.get(contract.id)
  if (!resumed) throw new OperationError('not_found', 'Contract not found.')
  return resumed
}
