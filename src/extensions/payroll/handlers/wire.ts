// Contracts and payouts as the wire writes them (contract/messages.ts).
import type { OutputOf } from '../../../bus/index.js'
import type { Contract } from '../contracts-store.js'
import type { Payout } from '../ledger-store.js'
import { paydayOf } from '../paydays.js'

export type WireContract = OutputOf<'PayrollContractGet'>
export type WirePayout = OutputOf<'PayrollContractPayNow'>

export function contractAsWire(contract: Contract): WireContract {
  const left = contract.periodsDone < contract.totalPeriods
  return {
    id: contract.id,
    name: contract.name,
    employee_wallet: contract.employeeWallet,
    source_wallet: contract.sourceWallet,
    amount: contract.amount,
    currency: contract.currency,
    frequency: contract.frequency,
    start_date: contract.startDate,
    total_periods: contract.totalPeriods,
    periods_done: contract.periodsDone,
    pricing_mode: contract.pricingMode,
    manual_rate: contract.manualRate,
    backfill: contract.backfill,
    status: contract.status,
    paused_reason: contract.pausedReason,
    created_at: isoOf(contract.createdAt),
    updated_at: isoOf(contract.updatedAt),
    next_payday: left ? paydayOf(contract.startDate, contract.frequency, contract.periodsDone) : null,
    ends_on: left ? paydayOf(contract.startDate, contract.frequency, contract.totalPeriods - 1) : null,
  }
}

/** Only finished attempts reach the wire; a `paying` claim is internal and listings leave it out. */
export function payoutAsWire(payout: Payout): WirePayout {
  if (payout.status === 'paying') throw new Error(`payout ${payout.id} is still a claim`)
  return {
    id: payout.id,
    contract_id: payout.contractId,
    contract_name: payout.contractName,
    period: payout.period,
    payday: payout.payday,
    status: payout.status,
    amount: payout.amount,
    currency: payout.currency,
    employee_wallet: payout.employeeWallet,
    source_wallet: payout.sourceWallet,
    amount_msat: payout.amountMsat,
    rate: payout.rate,
    rate_source: payout.rateSource,
    detail: payout.detail,
    memo: payout.memo,
    payment_hash: payout.paymentHash,
    created_at: isoOf(payout.createdAt),
  }
}

/** The CSV columns, in the order docs/payroll.md ("Ledger and CSV") gives them. */
export const payoutCsvHeader = [
  'id', 'contract_id', 'contract_name', 'period', 'payday', 'status', 'amount', 'currency', 'employee_wallet',
  'source_wallet', 'amount_msat', 'rate', 'rate_source', 'detail', 'memo', 'payment_hash', 'created_at',
] as const

export function payoutCsvRow(payout: Payout): (string | number | null)[] {
  const wire = payoutAsWire(payout)
  return payoutCsvHeader.map(column => wire[column])
}

function isoOf(ms: number): string {
  return new Date(ms).toISOString()
}
