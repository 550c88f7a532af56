// The payout ledger as callers read it: the operator's list and CSV export, and the employee's `/my/` views, which
// show only what pays the wallet the key names.
import type { HandlerTable, RawBody } from '../../../bus/index.js'
import { toCsv } from '../csv.js'
import type { Payout, PayoutFilter } from '../ledger-store.js'
import type { PayrollRoom } from '../payroll-room.js'
import { contractAsWire, payoutAsWire, payoutCsvHeader, payoutCsvRow } from './wire.js'

export function payoutHandlers(room: PayrollRoom): HandlerTable {
  const { ledger } = room
  const csv = (rows: Payout[], filename: string): RawBody => ({
    contentType: 'text/csv; charset=utf-8',
    body: toCsv(payoutCsvHeader, rows.map(payoutCsvRow)),
    filename,
  })
  const mine = (walletId: string): PayoutFilter => ({ employeeWallet: walletId })

  return {
    PayrollPayoutList: async input => (await ledger.list({ contractId: input.contract_id, status: input.status })).map(payoutAsWire),
    PayrollPayoutCsv: async input =>
      csv(await ledger.list({ contractId: input.contract_id, status: input.status, since: input.since, until: input.until }), 'payouts.csv'),
    PayrollMyPayouts: async (_input, ctx) => (await ledger.list(mine(ctx.caller.walletId))).map(payoutAsWire),
    PayrollMyPayoutCsv: async (_input, ctx) => csv(await ledger.list(mine(ctx.caller.walletId)), 'my-payouts.csv'),
    PayrollMyContracts: async (_input, ctx) => (await room.contracts.listPaying(ctx.caller.walletId)).map(contractAsWire),
  }
}
